// Fuzzes the NVRTC log parser: any text in, positioned diagnostics out, never a crash.
#include "core/compile/Diagnostics.h"

#include <QByteArray>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QString log = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const QVector<Diagnostic> diagnostics = parseNvrtcLog(log);
    for (const Diagnostic& d : diagnostics) {
        // The editor marks line/column directly: negative positions would be out of range.
        if (d.line < 0 || d.column < 0) {
            std::fprintf(stderr, "negative position %d:%d\n", d.line, d.column);
            std::abort();
        }
        (void)severityName(d.severity);
        (void)d.toJson();
    }
    return 0;
}
