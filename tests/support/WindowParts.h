#pragma once
// Reaching the parts of a MainWindow from a test by their object names, as a script or an
// accessibility tool would, instead of through getters that exist only for tests.

#include <QObject>
#include <QString>

#include <memory>

namespace kernelpad::test {

/// The window's child of type T named `name`, or null.
template <typename T> T* part(const QObject* window, const char* name) {
    return window->findChild<T*>(QString::fromLatin1(name));
}

template <typename T, typename Window>
T* part(const std::unique_ptr<Window>& window, const char* name) {
    return part<T>(window.get(), name);
}

} // namespace kernelpad::test
