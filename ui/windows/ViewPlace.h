#pragma once
// Where a result view goes and when it is made (ViewRegistry::registerView()).

namespace kernelpad {

/// Where a view's widget goes: a tab at the end of the result tabs, a dock of its own, or a
/// banner above the editor and the results (made with the window, hidden until it has news).
enum class ViewPlace { ResultTabs, LeftDock, RightDock, BottomDock, Banner };

/// When a view is made: when its tab or dock is first shown, or with the window.
enum class ViewCreation { WhenShown, AtOnce };

} // namespace kernelpad
