#include "ui/widgets/LineColours.h"

#include <array>

namespace kernelpad {

namespace {

// Hues (degrees) spread so that consecutive lines never look alike: blue, orange, green,
// pink, yellow, purple, teal, red.
constexpr std::array<int, kLineColourCount> kHues = {210, 30, 120, 330, 55, 270, 175, 0};

// HSL saturation and lightness (0..255): light bands stay behind dark text, dark bands behind
// light text; the emphasised shade moves halfway toward the text's contrast.
constexpr int kLightSaturation = 190;
constexpr int kLightBand = 235;
constexpr int kLightStrong = 200;
constexpr int kDarkSaturation = 110;
constexpr int kDarkBand = 50;
constexpr int kDarkStrong = 88;

} // namespace

int sourceLineColourIndex(int sourceLine) {
    return sourceLine < 1 ? 0 : sourceLine % kLineColourCount;
}

QColor sourceLineColour(int sourceLine, const Theme& theme, bool emphasised) {
    if (sourceLine < 1)
        return {};
    const int hue = kHues[size_t(sourceLineColourIndex(sourceLine))];
    if (theme.dark)
        return QColor::fromHsl(hue, kDarkSaturation, emphasised ? kDarkStrong : kDarkBand);
    return QColor::fromHsl(hue, kLightSaturation, emphasised ? kLightStrong : kLightBand);
}

} // namespace kernelpad
