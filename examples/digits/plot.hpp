// A line plot written as SVG by hand (no plotting library): panels side by side, each
// with its own y axis and one line per series over epochs 1, 2, ...
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace digits {

struct Series {
  std::string name;            // in the legend
  std::string color;           // an SVG color
  std::vector<double> values;  // values[i] belongs to epoch i + 1
};

struct Panel {
  std::string title;
  std::vector<Series> series;
};

// The SVG document.
std::string svg_plot(const std::string& title, const std::vector<Panel>& panels);
// svg_plot written to `path`; a tl::ValueError names the path when it cannot be written.
void write_svg_plot(const std::filesystem::path& path, const std::string& title,
                    const std::vector<Panel>& panels);

}  // namespace digits
