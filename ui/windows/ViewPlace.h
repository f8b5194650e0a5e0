#pragma once
// Where a result view goes and when it is made (ViewRegistry::registerView()).

namespace kernelpad {

/// Where a view's widget goes: a tab at the end of the result tabs, or a dock of its own.
enum class ViewPlace { ResultTabs, LeftDock, RightDock, BottomDock };

/// When a view is made: when its tab or dock is first shown, or with the window.
enum class ViewCreation { WhenShown, AtOnce };

} // namespace kernelpad
