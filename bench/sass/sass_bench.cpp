// bench/sass: how long after a compile the SASS tab has its SASS (held to: within
// 300 ms of a compile for every example). Each example is edited (a comment appended, so that
// no cache answers) and goes through the Engine as the window sends it: the compile, then the
// SASS view's disassemble request (SassReport: the -lineinfo compile, nvdisasm, the line map).
// The window's path is split into its parts: NVRTC, the nvdisasm process(es) (one per CUBIN),
// the parse of their output, the line map, and the rest (the -lineinfo compile's cache lookup,
// the queue); "text shown at" is when the SASS view gets the text (before the map), and "cache
// hit" the same request again (the Diff tab's, answered by SassCache without a process).
// Two paths are timed: the window's (one compile with -lineinfo, which the disassemble request
// finds in the compile cache) and the earlier one (a plain compile, then a second NVRTC compile
// with -lineinfo for the views). NVRTC and nvdisasm are reported apart, and the SASS of each
// example is compared with and without -lineinfo (tests/data/sass/README.md).
//
// --flags adds, per example, nvdisasm alone on the -lineinfo CUBIN with -c, -c -g and -c -gi.
// Prints one line per example and a total; exits 1 when an example's median is over the limit,
// 3 when nvdisasm is missing (it names where it looked), 4 on bad arguments.

#include "core/compile/CompileCache.h"
#include "core/compile/LineMap.h"
#include "core/compile/Sass.h"
#include "core/compile/SassCache.h"
#include "core/compile/SassReport.h"
#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "core/project/Project.h"
#include "core/run/ExecutionSession.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryFile>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <optional>

using namespace kernelpad;

namespace {

constexpr int kDefaultReps = 5;
constexpr double kDefaultLimitMs = 300.0; // the target: bench/README.md
constexpr int kAnswerTimeoutMs = 120000;
constexpr int kExitOverLimit = 1;
constexpr int kExitNoTool = 3;
constexpr int kExitBadInput = 4;

struct Sample {
    double compileMs = 0;      ///< request → compiled answer (the window's compile)
    double compileNvrtcMs = 0; ///< NVRTC's share of it (0 on a cache hit)
    double sassMs = 0;         ///< disassemble request → SassReport answer
    double listedMs = 0;       ///< disassemble request → the SASS text (sassListed)
    double sassNvrtcMs = 0;    ///< NVRTC's share of that (the second compile; 0 on a hit)
    double processMs = 0;      ///< nvdisasm's processes, wall time
    double processes = 0;      ///< how many nvdisasm processes the request started
    double parseMs = 0;        ///< parsing nvdisasm's output
    double mapMs = 0;          ///< building the line map
    double hitMs = 0;          ///< the same request again, answered by SassCache
    double hitProcesses = 0;   ///< processes that started for it (0 expected)
    [[nodiscard]] double totalMs() const { return compileMs + sassMs; }
    [[nodiscard]] double textMs() const { return compileMs + listedMs; }
    [[nodiscard]] double nvdisasmMs() const { return sassMs - sassNvrtcMs; }
    /// What the parts leave: the -lineinfo compile's cache lookup, the queue, the signals.
    [[nodiscard]] double otherMs() const {
        return sassMs - sassNvrtcMs - processMs - parseMs - mapMs;
    }
};

double median(QVector<double> v) {
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    const int n = int(v.size());
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

template <typename Member> double medianOf(const QVector<Sample>& samples, Member member) {
    QVector<double> values;
    for (const Sample& s : samples)
        values << (s.*member)();
    return median(values);
}

double medianField(const QVector<Sample>& samples, double Sample::*field) {
    QVector<double> values;
    for (const Sample& s : samples)
        values << s.*field;
    return median(values);
}

/// Waits for `signal` of `engine` with the id `id` and keeps its value in `store`.
template <typename T>
bool waitFor(Engine& engine, void (Engine::*signal)(quint64, const T&), quint64 id, T* store) {
    QEventLoop loop;
    bool answered = false;
    const QMetaObject::Connection c =
        QObject::connect(&engine, signal, &loop, [&](quint64 got, const T& value) {
            if (got != id)
                return;
            *store = value;
            answered = true;
            loop.quit();
        });
    QTimer::singleShot(kAnswerTimeoutMs, &loop, &QEventLoop::quit);
    if (!answered)
        loop.exec();
    QObject::disconnect(c);
    return answered;
}

/// The project with a comment appended that no earlier compile had, in the language's syntax.
Project edited(Project p, const QString& tag) {
    const QString comment = p.language == SourceLanguage::Nvvm ? QStringLiteral("\n; %1\n")
                                                               : QStringLiteral("\n// %1\n");
    p.source += comment.arg(tag);
    return p;
}

/// One pass: compile `project` as the window does (with -lineinfo when `oneCompile`), then ask
/// for its SASS. nullopt, with `error` set, when an answer is missing or the SASS failed.
std::optional<Sample> measure(Engine& engine, const Project& project, const QString& dir,
                              const QString& arch, bool oneCompile, QString* error) {
    Project compiled = project;
    if (oneCompile)
        compiled.options.lineInfo = true;
    Sample s;
    QElapsedTimer t;
    t.start();
    CompileResult result;
    if (!waitFor(engine, &Engine::compiled, engine.compile(compiled, dir, -1), &result)) {
        *error = QStringLiteral("no compile answer");
        return std::nullopt;
    }
    s.compileMs = double(t.nsecsElapsed()) / 1e6;
    s.compileNvrtcMs = result.cacheHit ? 0.0 : result.compileMs;
    if (!result.ok) {
        *error = QStringLiteral("does not compile: %1").arg(result.error);
        return std::nullopt;
    }
    // An edit that leaves the code as it was gives the same CUBIN: without this the cache
    // would answer, and the first request after an edit that changes the code is measured.
    SassCache::instance().clear();
    t.restart();
    SassReport report;
    const quint64 id = engine.disassemble(project, dir, arch);
    const QMetaObject::Connection listed = QObject::connect(
        &engine, &Engine::sassListed, &engine, [&](quint64 got, const SassReport&) {
            if (got == id)
                s.listedMs = double(t.nsecsElapsed()) / 1e6;
        });
    const bool answered = waitFor(engine, &Engine::sassReady, id, &report);
    QObject::disconnect(listed);
    if (!answered) {
        *error = QStringLiteral("no SASS answer");
        return std::nullopt;
    }
    s.sassMs = double(t.nsecsElapsed()) / 1e6;
    if (s.listedMs <= 0)
        s.listedMs = s.sassMs;
    s.sassNvrtcMs = report.compile.cacheHit ? 0.0 : report.compile.compileMs;
    if (!report.ok()) {
        *error = report.sass.error;
        return std::nullopt;
    }
    s.processMs = report.sass.processMs;
    s.processes = report.sass.processes;
    s.parseMs = report.sass.parseMs;
    s.mapMs = report.mapMs;
    // The Diff tab's request for the same compile: the cache's answer.
    t.restart();
    SassReport again;
    if (!waitFor(engine, &Engine::sassReady, engine.disassemble(project, dir, arch), &again) ||
        !again.ok()) {
        *error = QStringLiteral("no SASS answer the second time");
        return std::nullopt;
    }
    s.hitMs = double(t.nsecsElapsed()) / 1e6;
    s.hitProcesses = again.sass.processes;
    return s;
}

/// "same SASS" or where the two listings first differ: the CUBIN with and without -lineinfo.
QString compareLineInfo(const Project& project, const QString& dir, const QString& arch) {
    CompileCache none(CompileCache::kDefaultCapacity, QString()); // memory only: both run
    Project plain = project;
    plain.options.lineInfo = false;
    Project lines = project;
    lines.options.lineInfo = true;
    const CompileResult a = compileProject(plain, dir, arch, &none);
    const CompileResult b = compileProject(lines, dir, arch, &none);
    if (!a.ok || !b.ok)
        return QStringLiteral("not compared (compile failed)");
    const SassResult sa = disassembleCubin(a.cubin);
    const SassResult sb = disassembleCubin(b.cubin);
    if (!sa.ok || !sb.ok)
        return QStringLiteral("not compared (%1)").arg(sa.ok ? sb.error : sa.error);
    if (sa.listing.functions.size() != sb.listing.functions.size())
        return QStringLiteral("SASS DIFFERS: %1 functions against %2")
            .arg(sa.listing.functions.size())
            .arg(sb.listing.functions.size());
    for (int f = 0; f < sa.listing.functions.size(); ++f) {
        const SassFunction& fa = sa.listing.functions[f];
        const SassFunction& fb = sb.listing.functions[f];
        const int n = int(std::max(fa.instructions.size(), fb.instructions.size()));
        for (int i = 0; i < n; ++i) {
            const auto text = [](const SassFunction& fn, int k) {
                if (k >= fn.instructions.size())
                    return QStringLiteral("(end)");
                const SassInstruction& in = fn.instructions[k];
                return QStringLiteral("%1 %2 %3").arg(in.predicate, in.opcode, in.operands);
            };
            if (text(fa, i) != text(fb, i))
                return QStringLiteral("SASS DIFFERS in %1 at instruction %2: '%3' against '%4'")
                    .arg(fa.name)
                    .arg(i)
                    .arg(text(fa, i).simplified(), text(fb, i).simplified());
        }
    }
    return QStringLiteral("same SASS with -lineinfo (%1 instructions)")
        .arg(sa.listing.instructionCount());
}

QString ms(double v) {
    return QString::number(v, 'f', 1);
}

QString ms3(double v) {
    return QString::number(v, 'f', 3);
}

/// --flags: how long nvdisasm takes on the example's -lineinfo CUBIN with -c, -c -g and -c -gi
/// (median of `reps` runs each): what the line information costs, so whether a plain -c
/// process first would show the text sooner.
QString flagTimes(const Project& project, const QString& dir, const QString& arch,
                  const QString& nvdisasm, int reps) {
    Project lines = project;
    lines.options.lineInfo = true;
    const CompileResult compile = compileProject(lines, dir, arch, nullptr);
    if (!compile.ok || compile.cubin.isEmpty())
        return QStringLiteral("flags not timed (no CUBIN)");
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/sass_bench-XXXXXX.cubin"));
    if (!file.open() || file.write(compile.cubin) != compile.cubin.size() || !file.flush())
        return QStringLiteral("flags not timed (cannot write the CUBIN)");
    QStringList parts;
    for (const QStringList& flags : {QStringList{QStringLiteral("-c")},
                                     QStringList{QStringLiteral("-c"), QStringLiteral("-g")},
                                     QStringList{QStringLiteral("-c"), QStringLiteral("-gi")}}) {
        QVector<double> times;
        for (int r = 0; r < reps; ++r) {
            QElapsedTimer t;
            t.start();
            QProcess process;
            process.start(nvdisasm, flags + QStringList{file.fileName()});
            if (!process.waitForFinished(kNvdisasmTimeoutMs) || process.exitCode() != 0)
                return QStringLiteral("flags not timed (%1 %2 failed)")
                    .arg(nvdisasm, flags.join(QLatin1Char(' ')));
            times << double(t.nsecsElapsed()) / 1e6;
        }
        parts << QStringLiteral("%1 %2 ms").arg(flags.join(QLatin1Char(' ')), ms(median(times)));
    }
    return QStringLiteral("nvdisasm alone: ") + parts.join(QStringLiteral(", "));
}

/// --recorded DIR: the parse and the line map on nvdisasm outputs recorded on the GPU machine
/// (X.sass-gi.txt with X.ptx), for a machine without nvdisasm: what of "nvdisasm and map" is
/// not the nvdisasm process.
int timeRecorded(const QString& dir, int reps, QTextStream& out, QTextStream& err) {
    const QStringList listings =
        QDir(dir).entryList({QStringLiteral("*.sass-gi.txt")}, QDir::Files, QDir::Name);
    if (listings.isEmpty()) {
        err << "sass_bench: no *.sass-gi.txt in '" << dir << "'\n";
        return kExitBadInput;
    }
    out << "parse and map of recorded nvdisasm -c -gi outputs, median of " << reps << '\n';
    for (const QString& name : listings) {
        const QString stem = name.chopped(int(qstrlen(".sass-gi.txt")));
        QFile sassFile(QDir(dir).filePath(name));
        QFile ptxFile(QDir(dir).filePath(stem + QStringLiteral(".ptx")));
        if (!sassFile.open(QIODevice::ReadOnly) || !ptxFile.open(QIODevice::ReadOnly)) {
            err << "sass_bench: cannot read " << name << " and " << stem << ".ptx\n";
            return kExitBadInput;
        }
        const QString text = QString::fromUtf8(sassFile.readAll());
        const QString ptx = QString::fromUtf8(ptxFile.readAll());
        QVector<double> parse;
        QVector<double> map;
        SassListing listing;
        LineMap lines;
        for (int r = 0; r < reps; ++r) {
            QElapsedTimer t;
            t.start();
            listing = parseSass(text);
            parse << double(t.nsecsElapsed()) / 1e6;
            t.restart();
            lines = LineMap::build(ptx, listing, stem + QStringLiteral(".cu"));
            map << double(t.nsecsElapsed()) / 1e6;
        }
        out << stem << ": parse " << ms3(median(parse)) << " ms + map " << ms3(median(map))
            << " ms (" << listing.instructionCount() << " instructions, " << text.size()
            << " characters, " << lines.sourceLines().size() << " source lines)\n";
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    int reps = kDefaultReps;
    double limitMs = kDefaultLimitMs;
    QString dir = examplesDirectory();
    QString recorded;
    bool timeFlags = false;
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        const bool hasValue = i + 1 < args.size();
        bool ok = hasValue;
        if (a == QLatin1String("--reps") && hasValue)
            reps = args[++i].toInt(&ok);
        else if (a == QLatin1String("--limit-ms") && hasValue)
            limitMs = args[++i].toDouble(&ok);
        else if (a == QLatin1String("--examples") && hasValue)
            dir = args[++i];
        else if (a == QLatin1String("--recorded") && hasValue)
            recorded = args[++i];
        else if (a == QLatin1String("--flags"))
            ok = timeFlags = true;
        else
            ok = false;
        if (!ok || reps < 1 || !(limitMs > 0)) {
            err << "usage: sass_bench [--reps N >= 1] [--limit-ms MS > 0] [--examples DIR] "
                   "[--flags]\n"
                << "       sass_bench --recorded DIR [--reps N]   (parse and map only)\n"
                << "bad argument: " << a << '\n';
            return kExitBadInput;
        }
    }
    if (!recorded.isEmpty())
        return timeRecorded(recorded, reps, out, err);
    const NvdisasmLocation nvdisasm = findNvdisasm();
    if (nvdisasm.path.isEmpty()) {
        err << "sass_bench: " << nvdisasm.notFoundMessage() << '\n';
        return kExitNoTool;
    }
    const QVector<ExampleInfo> examples = listExamples(dir);
    if (examples.isEmpty()) {
        err << "sass_bench: no examples in '" << dir << "'\n";
        return kExitBadInput;
    }
    out << "SASS after a compile, median of " << reps << " edit(s) per example, nvdisasm "
        << nvdisasm.path << ", limit " << ms(limitMs) << " ms\n";
    out << "window = one NVRTC compile with -lineinfo, then nvdisasm and the line map; "
           "two compiles = a plain compile, then a second NVRTC compile with -lineinfo\n";

    // In this process, as KERNELPAD_IN_PROCESS=1 runs the window: the kernel's resources are
    // queried after each compile as they are there, without a runner process.
    Engine engine(nullptr, Engine::Isolation::InProcess);
    int over = 0;
    int failed = 0;
    QVector<double> windowMedians;
    for (const ExampleInfo& example : examples) {
        QString error;
        std::optional<Project> project = Project::load(example.path, &error);
        const QString file = QFileInfo(example.path).fileName();
        if (!project) {
            out << file << ": FAILED: " << error << '\n';
            ++failed;
            continue;
        }
        const QString projectDir = QFileInfo(example.path).absolutePath();
        const QString arch = project->options.arch.value_or(QString::fromLatin1(kDefaultArch));
        // A first pass loads NVRTC's headers into the OS cache and is not counted.
        const QString run = QString::number(QCoreApplication::applicationPid());
        (void)measure(engine, edited(*project, QStringLiteral("warm %1").arg(run)), projectDir,
                      arch, true, &error);
        QVector<Sample> window;
        QVector<Sample> twoCompiles;
        for (int r = 0; r < reps && error.isEmpty(); ++r) {
            const Project e = edited(*project, QStringLiteral("edit %1 %2").arg(run).arg(r));
            if (std::optional<Sample> s = measure(engine, e, projectDir, arch, true, &error))
                window << *s;
            const Project e2 = edited(*project, QStringLiteral("edit2 %1 %2").arg(run).arg(r));
            if (std::optional<Sample> s = measure(engine, e2, projectDir, arch, false, &error))
                twoCompiles << *s;
        }
        if (!error.isEmpty()) {
            out << file << ": FAILED: " << error << '\n';
            ++failed;
            continue;
        }
        const double total = medianOf(window, &Sample::totalMs);
        windowMedians << total;
        const bool tooSlow = total > limitMs;
        over += tooSlow ? 1 : 0;
        out << file << ": " << ms(total) << " ms (NVRTC "
            << ms(medianField(window, &Sample::compileNvrtcMs)) << " + nvdisasm and map "
            << ms(medianOf(window, &Sample::nvdisasmMs)) << " = nvdisasm "
            << ms(medianField(window, &Sample::processMs)) << " in "
            << medianField(window, &Sample::processes) << " process(es) + parse "
            << ms(medianField(window, &Sample::parseMs)) << " + map "
            << ms(medianField(window, &Sample::mapMs)) << " + other "
            << ms(medianOf(window, &Sample::otherMs)) << "); text shown at "
            << ms(medianOf(window, &Sample::textMs)) << " ms; cache hit "
            << ms(medianField(window, &Sample::hitMs)) << " ms in "
            << medianField(window, &Sample::hitProcesses) << " process(es); two compiles "
            << ms(medianOf(twoCompiles, &Sample::totalMs)) << " ms (NVRTC "
            << ms(medianField(twoCompiles, &Sample::compileNvrtcMs)) << " + NVRTC -lineinfo "
            << ms(medianField(twoCompiles, &Sample::sassNvrtcMs)) << " + nvdisasm and map "
            << ms(medianOf(twoCompiles, &Sample::nvdisasmMs)) << "); "
            << compareLineInfo(*project, projectDir, arch);
        if (timeFlags)
            out << "; " << flagTimes(*project, projectDir, arch, nvdisasm.path, reps);
        out << (tooSlow ? "; OVER" : "; ok") << '\n';
        out.flush();
    }
    out << "total: " << examples.size() << " examples, " << windowMedians.size()
        << " measured, median " << ms(median(windowMedians)) << " ms, slowest "
        << ms(windowMedians.isEmpty()
                  ? 0.0
                  : *std::max_element(windowMedians.cbegin(), windowMedians.cend()))
        << " ms, " << over << " over " << ms(limitMs) << " ms, " << failed << " failed\n";
    return over > 0 || failed > 0 ? kExitOverLimit : 0;
}
