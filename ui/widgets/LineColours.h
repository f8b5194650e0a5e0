#pragma once
// Compiler Explorer's matching colours: each source line with code gets a colour that marks it
// in the editor and its lines in the PTX and SASS listings, subtle as a band and stronger
// where the line is hovered.

#include "ui/Theme.h"

#include <QColor>

namespace kernelpad {

/// How many colours the bands cycle through: neighbouring source lines always differ.
inline constexpr int kLineColourCount = 8;

/// The band of `sourceLine` (>= 1) in `theme`: pale on a light paper, deep on a dark one, so
/// the text stays readable; `emphasised` gives the stronger shade of the same hue. Invalid
/// for a line below 1.
[[nodiscard]] QColor sourceLineColour(int sourceLine, const Theme& theme, bool emphasised = false);

/// The palette index of `sourceLine` (0 .. kLineColourCount - 1).
[[nodiscard]] int sourceLineColourIndex(int sourceLine);

} // namespace kernelpad
