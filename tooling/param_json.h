// JSON form of a kernel parameter (tooling::Param), shared by the extraction
// cache and the kernel registry so both store parameters the same way.
#pragma once

#include "tooling/kernel.h"

#include <nlohmann/json.hpp>

namespace kbcc::tooling {

inline nlohmann::json param_to_json(const Param &p) {
  return {{"name", p.name},
          {"type", p.type},
          {"is_pointer", p.is_pointer},
          {"pointee_const", p.pointee_const},
          {"pointee_type", p.pointee_type},
          {"is_record", p.is_record},
          {"is_integer", p.is_integer},
          {"is_signed", p.is_signed},
          {"size", p.size},
          {"align", p.align},
          {"offset", p.offset}};
}

} // namespace kbcc::tooling
