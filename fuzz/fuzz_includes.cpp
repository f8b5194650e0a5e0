// Fuzzes the include scanner (every directive spelling: #, %:, ??=, comments over lines,
// splices, __has_include): any text in, never a crash or a hang. Checks the invariants the
// resolver relies on to rewrite names: a name's position is exact, its line is in the text,
// and a plain `#include "name"` line is always found.
#include "core/compile/IncludeCheck.h"

#include <QByteArray>
#include <QRegularExpression>
#include <QStringList>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kernelpad;

namespace {

[[noreturn]] void fail(const char* what, const QString& detail) {
    std::fprintf(stderr, "%s: %s\n", what, qPrintable(detail));
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const QVector<IncludeDirective> directives = scanIncludeDirectives(text);
    const qsizetype lines = text.count(u'\n') + 1;
    for (const IncludeDirective& d : directives) {
        if (d.line < 1 || d.line > lines || d.column < 1)
            fail("position out of the text", d.spelled());
        if (d.name.size() > kMaxHeaderNameLength + 200)
            fail("unbounded name", d.spelled());
        if (d.nameOffset >= 0 && QStringView(text).mid(d.nameOffset, d.name.size()) != d.name)
            fail("the name is not where nameOffset says", d.spelled());
    }
    // The plainest spelling, on a line of its own with nothing that could hide it, must be
    // found, unless the scan stopped at a directive no compile goes past.
    const bool stopped = !directives.isEmpty() &&
                         (directives.last().kind == IncludeDirective::Kind::Computed ||
                          directives.last().kind == IncludeDirective::Kind::Malformed) &&
                         directives.last().mayBeReal();
    if (stopped)
        return 0;
    static const QRegularExpression plain(QStringLiteral(R"re(^#include "([a-z./]{1,64})"$)re"));
    const QStringList all = text.split(u'\n');
    for (qsizetype i = 0; i < all.size(); ++i) {
        const QRegularExpressionMatch m = plain.match(all.at(i));
        // A backslash, maybe followed by blanks, splices the line onto the one before.
        static const QRegularExpression splice(QStringLiteral(R"(\\[ \t\r]*$)"));
        if (!m.hasMatch() || (i > 0 && splice.match(all.at(i - 1)).hasMatch()))
            continue;
        bool found = false;
        for (const IncludeDirective& d : directives)
            found = found || (d.line == i + 1 && d.name == m.captured(1) && d.mayBeReal());
        if (!found)
            fail("a plain #include line was missed", all.at(i));
    }
    return 0;
}
