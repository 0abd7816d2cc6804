#include "tooling/serialize.h"

#include "tooling/param_json.h"

#include <nlohmann/json.hpp>

namespace kbcc::tooling {
using nlohmann::json;

namespace {

json kernel_json(const Kernel &k) {
  json params = json::array(), launches = json::array(), inputs = json::array();
  for (const Param &p : k.params)
    params.push_back(tooling::param_to_json(p));
  for (const LaunchSite &l : k.launches)
    launches.push_back({{"file", l.file},
                        {"line", l.line},
                        {"column", l.column},
                        {"form", l.form},
                        {"edit", {l.edit_begin, l.edit_end}},
                        {"close", {l.close_begin, l.close_end}},
                        {"not_rewritable", l.not_rewritable}});
  for (const HashSection &s : k.hash_inputs)
    inputs.push_back({{"label", s.label}, {"text", s.text}});
  return {{"qualified_name", k.qualified_name},
          {"mangled_names", k.mangled_names},
          {"file", k.file},
          {"begin", k.begin},
          {"end", k.end},
          {"line", k.line},
          {"in_main_file", k.in_main_file},
          {"is_template", k.is_template},
          {"params", params},
          {"launches", launches},
          {"hash", k.hash},
          {"hash_inputs", inputs},
          {"source", k.source},
          {"dependencies", k.dependencies},
          {"not_optimizable", k.not_optimizable},
          {"not_adaptable", k.not_adaptable}};
}

template <class T> void get(const json &j, const char *key, T &out) {
  if (auto it = j.find(key); it != j.end()) it->get_to(out);
}

Param param_from(const json &j) {
  Param p;
  get(j, "name", p.name), get(j, "type", p.type), get(j, "is_pointer", p.is_pointer);
  get(j, "pointee_const", p.pointee_const), get(j, "pointee_type", p.pointee_type);
  get(j, "is_record", p.is_record), get(j, "size", p.size), get(j, "align", p.align), get(j, "offset", p.offset);
  get(j, "is_integer", p.is_integer), get(j, "is_signed", p.is_signed);
  return p;
}

Kernel kernel_from(const json &j) {
  Kernel k;
  get(j, "qualified_name", k.qualified_name), get(j, "mangled_names", k.mangled_names), get(j, "file", k.file);
  get(j, "begin", k.begin), get(j, "end", k.end), get(j, "line", k.line), get(j, "in_main_file", k.in_main_file);
  get(j, "is_template", k.is_template), get(j, "hash", k.hash), get(j, "source", k.source);
  get(j, "dependencies", k.dependencies), get(j, "not_optimizable", k.not_optimizable);
  get(j, "not_adaptable", k.not_adaptable);
  for (const json &p : j.value("params", json::array()))
    k.params.push_back(param_from(p));
  for (const json &l : j.value("launches", json::array())) {
    LaunchSite site;
    get(l, "file", site.file), get(l, "line", site.line), get(l, "column", site.column), get(l, "form", site.form);
    get(l, "not_rewritable", site.not_rewritable);
    auto pair = [&](const char *key, uint64_t &a, uint64_t &b) {
      if (auto it = l.find(key); it != l.end() && it->is_array() && it->size() == 2)
        a = (*it)[0].get<uint64_t>(), b = (*it)[1].get<uint64_t>();
    };
    pair("edit", site.edit_begin, site.edit_end);
    pair("close", site.close_begin, site.close_end);
    k.launches.push_back(std::move(site));
  }
  for (const json &s : j.value("hash_inputs", json::array()))
    k.hash_inputs.push_back({s.value("label", ""), s.value("text", "")});
  return k;
}

} // namespace

std::string extraction_to_json(const Extraction &x) {
  json kernels = json::array(), diagnostics = json::array();
  for (const Kernel &k : x.kernels)
    kernels.push_back(kernel_json(k));
  for (const ParseDiagnostic &d : x.diagnostics)
    diagnostics.push_back({{"file", d.file},
                           {"line", d.line},
                           {"column", d.column},
                           {"fatal", d.fatal},
                           {"tolerated", d.tolerated},
                           {"message", d.message}});
  json j = {{"source_path", x.source_path},
            {"arch", x.arch},
            {"kernels", kernels},
            {"included_files", x.included_files},
            {"parse_errors", x.parse_errors},
            {"diagnostics", diagnostics},
            {"parse_seconds", x.parse_seconds}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Expected<Extraction> extraction_from_json(const std::string &text, const std::string &origin) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("kernels"))
    return make_error(origin + ": not a kbcc extraction (bad JSON)", "bad-extraction");
  try {
    Extraction x;
    get(j, "source_path", x.source_path), get(j, "arch", x.arch), get(j, "included_files", x.included_files);
    get(j, "parse_errors", x.parse_errors), get(j, "parse_seconds", x.parse_seconds);
    for (const json &k : j["kernels"])
      x.kernels.push_back(kernel_from(k));
    for (const json &d : j.value("diagnostics", json::array()))
      x.diagnostics.push_back({d.value("file", ""), d.value("line", 0u), d.value("column", 0u), d.value("fatal", false),
                               d.value("tolerated", false), d.value("message", "")});
    return x;
  } catch (const std::exception &e) {
    return make_error(origin + ": malformed kbcc extraction: " + e.what(), "bad-extraction");
  }
}

} // namespace kbcc::tooling
