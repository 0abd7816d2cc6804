#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kbcc::report {
namespace {

constexpr int kLeft = 64, kRight = 20, kTop = 36, kBottom = 48;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string data_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Position of `v` in [0, 1] along `axis`.
double fraction(const Axis &axis, double v) {
  if (axis.log) {
    double lo = std::log10(axis.min), hi = std::log10(axis.max);
    v = std::log10(std::max(v, axis.min * 1e-3));
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
  }
  return axis.max > axis.min ? (v - axis.min) / (axis.max - axis.min) : 0.5;
}

double nice_step(double span, int target) {
  double raw = span / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

} // namespace

std::string escape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::vector<double> axis_ticks(const Axis &axis) {
  std::vector<double> ticks;
  if (axis.log) {
    if (axis.min <= 0 || axis.max <= axis.min) return ticks;
    int lo = static_cast<int>(std::floor(std::log10(axis.min))), hi = static_cast<int>(std::ceil(std::log10(axis.max)));
    bool dense = hi - lo <= 2;
    for (int e = lo; e <= hi; ++e)
      for (double m : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        double v = m * std::pow(10.0, e);
        if (v >= axis.min * 0.999 && v <= axis.max * 1.001) ticks.push_back(v);
      }
    return ticks;
  }
  if (axis.max <= axis.min) return {axis.min};
  double step = nice_step(axis.max - axis.min, 5);
  for (double v = std::ceil(axis.min / step) * step; v <= axis.max + step * 1e-9; v += step)
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string tick_label(double value) {
  char buf[32];
  double a = std::fabs(value);
  if (a == 0) return "0";
  if (a >= 1e4 || a < 1e-2)
    std::snprintf(buf, sizeof buf, "%.0e", value);
  else if (a >= 1000 && std::fmod(a, 1000) == 0)
    std::snprintf(buf, sizeof buf, "%gk", value / 1000);
  else
    std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

Chart::Chart(std::string title, Axis x, Axis y, int width, int height)
    : title_(std::move(title)), x_(std::move(x)), y_(std::move(y)), width_(width), height_(height) {}

double Chart::px(double x) const {
  double f = std::clamp(fraction(x_, x), 0.0, 1.0);
  return kLeft + f * (width_ - kLeft - kRight);
}

double Chart::py(double y) const {
  double f = std::clamp(fraction(y_, y), 0.0, 1.0);
  return height_ - kBottom - f * (height_ - kTop - kBottom);
}

void Chart::point(double x, double y, const std::string &color, const std::string &tooltip, bool hollow) {
  body_ += "<circle class=\"point\" cx=\"" + num(px(x)) + "\" cy=\"" + num(py(y)) + "\" r=\"4.5\" data-x=\"" +
           data_num(x) + "\" data-y=\"" + data_num(y) + "\" fill=\"" + (hollow ? "white" : color) + "\" stroke=\"" +
           color + "\" stroke-width=\"1.5\"><title>" + escape(tooltip) + "</title></circle>\n";
}

void Chart::line(const std::vector<std::pair<double, double>> &points, const std::string &color, bool dashed,
                 const std::string &css_class) {
  if (points.empty()) return;
  std::string d;
  for (const auto &[x, y] : points)
    d += num(px(x)) + "," + num(py(y)) + " ";
  d.pop_back();
  body_ += "<polyline class=\"" + escape(css_class) + "\" points=\"" + d + "\" fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"1.8\"" + (dashed ? " stroke-dasharray=\"5,4\"" : "") + "/>\n";
}

void Chart::label(double x, double y, const std::string &text, const std::string &color, double dy) {
  body_ += "<text x=\"" + num(px(x) + 6) + "\" y=\"" + num(py(y) - 6 + dy) + "\" fill=\"" + color +
           "\" font-size=\"11\">" + escape(text) + "</text>\n";
}

void Chart::legend(const std::string &text, const std::string &color) { legend_.emplace_back(text, color); }

std::string Chart::str() const {
  int plot_w = width_ - kLeft - kRight, plot_h = height_ - kTop - kBottom;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + std::to_string(width_) +
                  "\" height=\"" + std::to_string(height_) + "\" viewBox=\"0 0 " + std::to_string(width_) + " " +
                  std::to_string(height_) + "\" role=\"img\" aria-label=\"" + escape(title_) + "\">\n";
  s += "<text x=\"" + std::to_string(kLeft) + "\" y=\"20\" font-size=\"14\" font-weight=\"600\">" + escape(title_) +
       "</text>\n";
  s += "<rect x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(kTop) + "\" width=\"" +
       std::to_string(plot_w) + "\" height=\"" + std::to_string(plot_h) + "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  for (double t : axis_ticks(x_)) {
    std::string x = num(px(t));
    s += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + std::to_string(kTop) + "\" y2=\"" +
         std::to_string(height_ - kBottom) + "\" stroke=\"#e3e3e3\"/>\n<text x=\"" + x + "\" y=\"" +
         std::to_string(height_ - kBottom + 16) + "\" font-size=\"11\" text-anchor=\"middle\">" + tick_label(t) +
         "</text>\n";
  }
  for (double t : axis_ticks(y_)) {
    std::string y = num(py(t));
    s += "<line class=\"grid\" x1=\"" + std::to_string(kLeft) + "\" x2=\"" + std::to_string(width_ - kRight) +
         "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"#e3e3e3\"/>\n<text x=\"" + std::to_string(kLeft - 6) +
         "\" y=\"" + y + "\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">" + tick_label(t) +
         "</text>\n";
  }
  s += "<text x=\"" + std::to_string(kLeft + plot_w / 2) + "\" y=\"" + std::to_string(height_ - 10) +
       "\" font-size=\"12\" text-anchor=\"middle\">" + escape(x_.label) + "</text>\n";
  s += "<text transform=\"translate(14," + std::to_string(kTop + plot_h / 2) +
       ") rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">" + escape(y_.label) + "</text>\n";
  s += body_;
  int ly = kTop + 14;
  for (const auto &[text, color] : legend_) {
    int lx = width_ - kRight - 180;
    s += "<rect x=\"" + std::to_string(lx) + "\" y=\"" + std::to_string(ly - 9) +
         "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/><text x=\"" + std::to_string(lx + 15) + "\" y=\"" +
         std::to_string(ly) + "\" font-size=\"11\">" + escape(text) + "</text>\n";
    ly += 15;
  }
  return s + "</svg>\n";
}

std::string bar_chart(const std::string &title, const std::string &value_label, const std::vector<Bar> &bars,
                      double reference, int width) {
  const int left = 190, right = 60, top = 36, row = 22, bottom = 40;
  int height = top + row * static_cast<int>(std::max<size_t>(bars.size(), 1)) + bottom;
  double max = reference;
  for (const auto &b : bars)
    max = std::max(max, b.value);
  max = max > 0 ? max * 1.1 : 1;
  int plot_w = width - left - right;
  auto xpos = [&](double v) { return left + std::clamp(v / max, 0.0, 1.0) * plot_w; };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + std::to_string(width) +
                  "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
                  std::to_string(height) + "\" role=\"img\" aria-label=\"" + escape(title) + "\">\n";
  s += "<text x=\"" + std::to_string(left) + "\" y=\"20\" font-size=\"14\" font-weight=\"600\">" + escape(title) +
       "</text>\n";
  for (double t : axis_ticks(Axis{"", 0, max})) {
    std::string x = num(xpos(t));
    s += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + std::to_string(top) + "\" y2=\"" +
         std::to_string(height - bottom) + "\" stroke=\"#e3e3e3\"/><text x=\"" + x + "\" y=\"" +
         std::to_string(height - bottom + 16) + "\" font-size=\"11\" text-anchor=\"middle\">" + tick_label(t) +
         "</text>\n";
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar &b = bars[i];
    int y = top + static_cast<int>(i) * row;
    s += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + row / 2) +
         "\" font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"middle\">" + escape(b.category) + "</text>\n";
    s += "<rect class=\"bar\" x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
         num(xpos(b.value) - left) + "\" height=\"" + std::to_string(row - 6) + "\" fill=\"" + b.color +
         "\" data-x=\"" + escape(b.category) + "\" data-y=\"" + data_num(b.value) + "\"><title>" +
         escape(b.tooltip.empty() ? b.category : b.tooltip) + "</title></rect>\n";
    s += "<text x=\"" + num(xpos(b.value) + 4) + "\" y=\"" + std::to_string(y + row / 2) +
         "\" font-size=\"11\" dominant-baseline=\"middle\">" + tick_label(std::round(b.value * 100) / 100) +
         "</text>\n";
  }
  if (reference > 0) {
    std::string x = num(xpos(reference));
    s += "<line class=\"reference\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + std::to_string(top) + "\" y2=\"" +
         std::to_string(height - bottom) + "\" stroke=\"#c00\" stroke-dasharray=\"4,3\"/>\n";
  }
  s += "<text x=\"" + std::to_string(left + plot_w / 2) + "\" y=\"" + std::to_string(height - 8) +
       "\" font-size=\"12\" text-anchor=\"middle\">" + escape(value_label) + "</text>\n";
  if (bars.empty())
    s += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top + 14) +
         "\" font-size=\"12\" fill=\"#777\">no data yet</text>\n";
  return s + "</svg>\n";
}

} // namespace kbcc::report
