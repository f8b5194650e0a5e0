#pragma once
// The entry points of a library opened at run time with dlopen (cuBLAS, cuBLASLt, the CUB
// plugin), looked up one by one, with the names not found kept for one message.

#include <QString>
#include <QStringList>

#include <dlfcn.h>

namespace kernelpad {

class LibrarySymbols {
public:
    explicit LibrarySymbols(void* handle)
        : m_handle(handle) {}

    /// Sets `*slot` to the symbol's address, or to null and remembers its name.
    template <typename Fn> void resolve(Fn* slot, const char* symbol) {
        *slot = reinterpret_cast<Fn>(dlsym(m_handle, symbol));
        if (!*slot)
            m_missing << QString::fromLatin1(symbol);
    }

    [[nodiscard]] bool complete() const { return m_missing.isEmpty(); }

    /// "FILE lacks entry points KernelPad needs: a, b" (empty when complete).
    [[nodiscard]] QString problem(const QString& file) const {
        if (complete())
            return {};
        return QStringLiteral("%1 lacks entry points KernelPad needs: %2")
            .arg(file, m_missing.join(QStringLiteral(", ")));
    }

private:
    void* m_handle;
    QStringList m_missing;
};

} // namespace kernelpad
