// The report page and its machine-readable twin.
#pragma once

#include "report/data.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kbcc::report {

// A self-contained HTML page (inline CSS and SVG, no scripts, no external
// resources): summary, speedup per kernel, roofline, trajectories over time,
// KB statistics per state and per optimization. `generated` is the time text
// shown in the header.
std::string render_html(const ReportData &data, const std::string &generated);

// The same content as JSON (`kbcc report --json`): kernels, trajectories
// (with steps), variants and KB statistics, with stable field names.
nlohmann::json report_json(const ReportData &data);

} // namespace kbcc::report
