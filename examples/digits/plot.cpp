#include "plot.hpp"

#include <tlaloc/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace digits {

namespace {

// Sizes in SVG user units: one panel, and the plot area's margins inside it.
constexpr double kPanelW = 460, kPanelH = 320, kTitleH = 30;
constexpr double kLeft = 60, kRight = 20, kTop = 36, kBottom = 46;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// An axis from lo to hi in steps of 1, 2 or 5 times a power of ten, about five of them,
// covering [min, max] of the data.
struct Axis {
  double lo, hi, step;
  int decimals;  // enough to tell the ticks apart
};

Axis nice_axis(double min, double max) {
  if (!(max > min)) {  // one value, or none: a unit-wide window around it
    min = std::isfinite(min) ? min - 0.5 : 0.0;
    max = min + 1.0;
  }
  const double raw = (max - min) / 5.0, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * magnitude;
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  // The tolerance keeps a bound that is a multiple of the step (1.0 for accuracies)
  // from gaining a tick through rounding.
  const double lo = std::floor(min / step + 1e-9) * step, hi = std::ceil(max / step - 1e-9) * step;
  return {lo, hi, step, std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)))};
}

void draw_panel(std::ostringstream& s, const Panel& panel, double x0, double y0) {
  double min = std::numeric_limits<double>::infinity(), max = -min;
  std::size_t epochs = 0;
  for (const Series& series : panel.series) {
    epochs = std::max(epochs, series.values.size());
    for (double v : series.values) min = std::min(min, v), max = std::max(max, v);
  }
  const Axis y = nice_axis(min, max);
  const double left = x0 + kLeft, right = x0 + kPanelW - kRight, top = y0 + kTop,
               bottom = y0 + kPanelH - kBottom;
  const double x_span = epochs > 1 ? static_cast<double>(epochs - 1) : 1.0;
  const auto px = [&](std::size_t i) { return left + (right - left) * static_cast<double>(i) / x_span; };
  const auto py = [&](double v) { return bottom - (bottom - top) * (v - y.lo) / (y.hi - y.lo); };

  s << "<text x=\"" << (left + right) / 2 << "\" y=\"" << y0 + 22
    << "\" text-anchor=\"middle\" font-size=\"15\">" << escape(panel.title) << "</text>\n";
  for (double v = y.lo; v <= y.hi + y.step / 2; v += y.step) {
    s << "<line x1=\"" << left << "\" x2=\"" << right << "\" y1=\"" << py(v) << "\" y2=\"" << py(v)
      << "\" stroke=\"#ddd\"/>\n<text x=\"" << left - 6 << "\" y=\"" << py(v) + 4
      << "\" text-anchor=\"end\" font-size=\"11\">" << number(v, y.decimals) << "</text>\n";
  }
  // Epoch 1, then the multiples of 1, 2, 5, 10, ... that give at most ten more ticks.
  std::size_t every = 1;
  for (std::size_t m = 1; epochs / every > 10; m *= 10)
    for (std::size_t f : {1, 2, 5})
      if (epochs / every > 10) every = f * m;
  for (std::size_t e = 1; e <= epochs; e = (e == 1 && every > 1) ? every : e + every)
    s << "<text x=\"" << px(e - 1) << "\" y=\"" << bottom + 16
      << "\" text-anchor=\"middle\" font-size=\"11\">" << e << "</text>\n";
  s << "<text x=\"" << (left + right) / 2 << "\" y=\"" << bottom + 34
    << "\" text-anchor=\"middle\" font-size=\"12\">epoch</text>\n";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left << "\" height=\""
    << bottom - top << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (const Series& series : panel.series) {
    s << "<polyline fill=\"none\" stroke=\"" << escape(series.color) << "\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < series.values.size(); ++i)
      s << (i ? " " : "") << px(i) << ',' << py(series.values[i]);
    s << "\"/>\n";
  }
}

}  // namespace

std::string svg_plot(const std::string& title, const std::vector<Panel>& panels) {
  const double width = kPanelW * static_cast<double>(std::max<std::size_t>(1, panels.size()));
  const double height = kPanelH + kTitleH;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << ' ' << height << "\" font-family=\"sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"" << width / 2
    << "\" y=\"20\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" << escape(title)
    << "</text>\n";
  // One legend for all panels, right of the title: each name once, in order.
  std::vector<const Series*> names;
  for (const Panel& panel : panels)
    for (const Series& series : panel.series)
      if (std::none_of(names.begin(), names.end(), [&](const Series* n) { return n->name == series.name; }))
        names.push_back(&series);
  double x = width - 20 - 70 * static_cast<double>(names.size());
  for (const Series* series : names) {
    s << "<line x1=\"" << x << "\" x2=\"" << x + 20 << "\" y1=\"15\" y2=\"15\" stroke=\""
      << escape(series->color) << "\" stroke-width=\"2\"/>\n<text x=\"" << x + 26
      << "\" y=\"19\" font-size=\"12\">" << escape(series->name) << "</text>\n";
    x += 70;
  }
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(s, panels[i], kPanelW * static_cast<double>(i), kTitleH);
  s << "</svg>\n";
  return s.str();
}

void write_svg_plot(const std::filesystem::path& path, const std::string& title,
                    const std::vector<Panel>& panels) {
  std::ofstream out(path);
  out << svg_plot(title, panels);
  out.close();
  if (!out) throw tlaloc::ValueError("digits: cannot write the plot to " + path.string());
}

}  // namespace digits
