// Fuzzes the compile options of a project: JSON bytes -> ProgramOptions::fromJson, validate()
// and toFlags(). Checks the security invariant of the allow-list (issue "a project file must
// never write the user's files"): whatever the input, no flag outside the table reaches NVRTC.
#include "core/compile/NvrtcFlags.h"
#include "core/compile/ProgramOptions.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

namespace {

[[noreturn]] void fail(const char* what, const QStringList& flags, const QString& detail) {
    std::fprintf(stderr, "%s: %s\nflags: %s\n", what, qPrintable(detail),
                 qPrintable(flags.join(QStringLiteral(" | "))));
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes =
        QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject())
        return 0;
    QString error;
    const std::optional<ProgramOptions> options = ProgramOptions::fromJson(doc.object(), &error);
    if (!options) {
        // Also a ProgramOptions that a caller built by hand, bypassing the loader: toFlags()
        // must hold the line on its own.
        ProgramOptions raw;
        const QJsonObject json = doc.object();
        for (const auto& value : json.value(QStringLiteral("extraFlags")).toArray())
            raw.extraFlags.append(value.toString());
        for (const auto& value : json.value(QStringLiteral("defines")).toArray())
            raw.defines.append(value.toString());
        for (const auto& value : json.value(QStringLiteral("includeDirs")).toArray())
            raw.includeDirs.append(value.toString());
        if (json.value(QStringLiteral("arch")).isString())
            raw.arch = json.value(QStringLiteral("arch")).toString();
        const QStringList flags = raw.toFlags(QString());
        if (const auto refusal = checkNvrtcFlags(flags))
            fail("toFlags of unchecked options emitted a refused flag", flags, refusal->message());
        return 0;
    }
    const QString problem = options->validate();
    const QStringList flags = options->toFlags(QStringLiteral("sm_90"));
    if (const auto refusal = checkNvrtcFlags(flags))
        fail("toFlags emitted a flag off the allow-list", flags, refusal->message());
    // What loaded passes the allow-list, so every extra flag must be passed on, in order.
    if (!flags.join(u'\n').contains(options->extraFlags.join(u'\n')))
        fail("an accepted extra flag was dropped", flags, options->extraFlags.join(u' '));
    // A loaded project saves and loads to the same options.
    QString again;
    const std::optional<ProgramOptions> reloaded =
        ProgramOptions::fromJson(options->toJson(), &again);
    if (!reloaded || !(*reloaded == *options))
        fail("options changed in a save/load round trip", flags, again);
    (void)problem;
    return 0;
}
