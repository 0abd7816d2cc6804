// Inline SVG charts drawn in C++, so a report renders without JavaScript or
// network access. Every data mark carries class "point" or "bar" and
// data-x/data-y attributes, and a <title> tooltip.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kbcc::report {

// Escapes &, <, >, " and ' for HTML/SVG text and attribute values.
std::string escape(const std::string &text);

struct Axis {
  std::string label;
  double min = 0, max = 1;
  bool log = false; // logarithmic (min must be > 0)
};

// Tick positions for an axis: "nice" 1/2/5 steps (linear) or powers of ten
// plus 2 and 5 multiples when the range spans few decades (log).
std::vector<double> axis_ticks(const Axis &axis);
// Short label of a tick value ("0.5", "2", "1k", "1e-3").
std::string tick_label(double value);

// A scatter/line chart with two numeric axes.
class Chart {
public:
  Chart(std::string title, Axis x, Axis y, int width = 640, int height = 380);

  // A marker at (x, y); `tooltip` becomes its <title>. Hollow markers mark
  // failed or secondary data.
  void point(double x, double y, const std::string &color, const std::string &tooltip, bool hollow = false);
  // A line through `points` (data coordinates).
  void line(const std::vector<std::pair<double, double>> &points, const std::string &color, bool dashed = false,
            const std::string &css_class = "series");
  // A text label at data coordinates, moved down by `dy` pixels.
  void label(double x, double y, const std::string &text, const std::string &color = "#333", double dy = 0);
  // A legend entry (drawn top-right).
  void legend(const std::string &text, const std::string &color);
  // The finished <svg> element.
  std::string str() const;

  double px(double x) const; // data -> pixel coordinates (clamped into the plot)
  double py(double y) const;

private:
  std::string title_;
  Axis x_, y_;
  int width_, height_;
  std::string body_;
  std::vector<std::pair<std::string, std::string>> legend_;
};

struct Bar {
  std::string category; // axis label (escaped when drawn)
  double value = 0;
  std::string color;
  std::string tooltip;
};

// A horizontal bar chart; `reference` (e.g. 1.0 for "no speedup") is drawn
// as a dashed vertical line when > 0.
std::string bar_chart(const std::string &title, const std::string &value_label, const std::vector<Bar> &bars,
                      double reference = 0, int width = 640);

} // namespace kbcc::report
