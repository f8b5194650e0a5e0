#include "core/compile/Sass.h"

#include "core/compile/SassLiveRanges.h"
#include "core/compile/Toolkit.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryFile>

#include <algorithm>
#include <chrono>
#include <memory>

namespace kernelpad {

namespace {

/// `//--------------------- .text.saxpy     -----` opens a function; any other such header
/// (".nv.constant0.saxpy", "SYMBOLS") closes it.
const QRegularExpression& sectionHeader() {
    static const QRegularExpression re(QStringLiteral(R"(^\s*//-+\s+(\S+)\s+-+\s*$)"));
    return re;
}

/// `//## File "/tmp/a.cu", line 12` or `... line 112 inlined at "/tmp/a.cu", line 33`.
const QRegularExpression& filePosition() {
    static const QRegularExpression re(QStringLiteral(R"re(File "([^"]*)", line (\d+))re"));
    return re;
}

/// `/*0080*/   @P0 EXIT ;`: the address, then the instruction.
const QRegularExpression& instructionLine() {
    static const QRegularExpression re(QStringLiteral(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*)$)"));
    return re;
}

/// A branch or call target: BRA `(.L_x_0) ;
const QRegularExpression& branchTarget() {
    static const QRegularExpression re(QStringLiteral(R"(`\(([^)\s]+)\))"));
    return re;
}

/// `.L_x_0:` (nvdisasm's local labels).
bool isLocalLabel(QStringView trimmed) {
    return trimmed.size() > 3 && trimmed.startsWith(QLatin1String(".L")) &&
           trimmed.endsWith(u':') && !trimmed.contains(u' ');
}

/// The positions of one `//## File` comment, innermost first.
QVector<SourcePos> positionsOf(const QString& line) {
    QVector<SourcePos> positions;
    QRegularExpressionMatchIterator it = filePosition().globalMatch(line);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        bool ok = false;
        const int number = m.captured(2).toInt(&ok);
        if (ok && number > 0)
            positions.append({m.captured(1), number});
    }
    return positions;
}

/// Splits "@P0 ISETP.GE.AND P0, PT, R0, UR6, PT ;" into its parts.
void splitInstruction(QString body, SassInstruction* out) {
    body = body.trimmed();
    // Older architectures print dual-issue pairs in braces: "{ FADD R0, R1, R2 ; }".
    if (body.startsWith(u'{'))
        body = body.mid(1).trimmed();
    if (body.endsWith(u'}'))
        body.chop(1);
    body = body.trimmed();
    while (body.endsWith(u';'))
        body.chop(1);
    body = body.trimmed();
    if (body.startsWith(u'@')) {
        const qsizetype space = body.indexOf(u' ');
        out->predicate = space < 0 ? body : body.left(space);
        body = space < 0 ? QString() : body.mid(space + 1).trimmed();
    }
    const qsizetype space = body.indexOf(u' ');
    out->opcode = space < 0 ? body : body.left(space);
    out->operands = space < 0 ? QString() : body.mid(space + 1).trimmed();
    const QRegularExpressionMatch target = branchTarget().match(out->operands);
    if (target.hasMatch())
        out->branchTarget = target.captured(1);
}

} // namespace

int SassFunction::indexOfAddress(qint64 address) const {
    for (int i = 0; i < instructions.size(); ++i) {
        if (instructions[i].address == address)
            return i;
    }
    return -1;
}

const SassFunction* SassListing::findFunction(const QString& name) const {
    for (const SassFunction& f : functions) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

int SassListing::instructionCount() const {
    int count = 0;
    for (const SassFunction& f : functions)
        count += int(f.instructions.size());
    return count;
}

SassListing parseSass(const QString& text) {
    SassListing listing;
    listing.text = text;
    SassFunction* current = nullptr;
    QVector<SourcePos> chain;
    bool previousWasPosition = false;
    int lineNumber = 0;
    qsizetype start = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf(u'\n', start);
        if (end < 0)
            end = text.size();
        const QString line = text.mid(start, end - start);
        start = end + 1;
        ++lineNumber;
        const QStringView trimmed = QStringView(line).trimmed();
        if (trimmed.isEmpty())
            continue;
        const bool isPosition = trimmed.startsWith(QLatin1String("//##"));
        if (isPosition) {
            // -gi prints "A inlined at B" then "B": one chain, innermost first, for the
            // instructions that follow.
            if (!previousWasPosition)
                chain.clear();
            for (const SourcePos& pos : positionsOf(line)) {
                if (chain.isEmpty() || !(chain.last() == pos))
                    chain.append(pos);
            }
            previousWasPosition = true;
            continue;
        }
        previousWasPosition = false;
        if (const QRegularExpressionMatch header = sectionHeader().match(line); header.hasMatch()) {
            const QString section = header.captured(1);
            current = nullptr;
            chain.clear();
            if (section.startsWith(QLatin1String(".text.")) && section.size() > 6) {
                listing.functions.append(SassFunction{});
                current = &listing.functions.last();
                current->name = section.mid(6);
                current->textLine = lineNumber;
            }
            continue;
        }
        if (!current)
            continue;
        if (isLocalLabel(trimmed)) {
            current->labels.insert(trimmed.chopped(1).toString(),
                                   int(current->instructions.size()));
            continue;
        }
        const QRegularExpressionMatch m = instructionLine().match(line);
        if (!m.hasMatch())
            continue;
        SassInstruction instruction;
        bool ok = false;
        instruction.address = m.captured(1).toLongLong(&ok, 16);
        if (!ok)
            continue;
        splitInstruction(m.captured(2), &instruction);
        if (instruction.opcode.isEmpty())
            continue;
        instruction.raw = line;
        instruction.textLine = lineNumber;
        instruction.source = chain;
        current->instructions.append(instruction);
    }
    return listing;
}

QString NvdisasmLocation::notFoundMessage() const {
    return QStringLiteral("nvdisasm not found (install the CUDA toolkit's binary utilities; "
                          "looked in %1)")
        .arg(looked.isEmpty() ? QStringLiteral("(nowhere: no CUDA_HOME, CUDA_PATH, toolkit or "
                                               "PATH)")
                              : looked.join(QStringLiteral(", ")));
}

NvdisasmLocation findNvdisasm() {
    const ToolkitProgram program = findToolkitProgram(QStringLiteral("nvdisasm"));
    return NvdisasmLocation{program.path, program.looked};
}

SassResult disassembleCubin(const QByteArray& cubin, int timeoutMs) {
    SassOptions options;
    options.timeoutMs = timeoutMs;
    return disassembleCubin(cubin, options);
}

QString sassCancelledMessage() {
    return QStringLiteral("disassembly stopped: a newer compile replaced it");
}

/// Why nvdisasm was stopped: it ran past `timeoutMs`, or (not `timedOut`) printed too much.
static QString nvdisasmStoppedMessage(const QString& program, bool timedOut, int timeoutMs) {
    return timedOut ? QStringLiteral("%1 did not finish within %2 s; stopped")
                          .arg(program)
                          .arg(timeoutMs / 1000.0)
                    : QStringLiteral("%1 printed more than %2 MiB of SASS; stopped")
                          .arg(program)
                          .arg(kMaxSassBytes / (1024 * 1024));
}

SassResult disassembleCubin(const QByteArray& cubin, const SassOptions& options) {
    const int timeoutMs = options.timeoutMs;
    SassResult result;
    const auto cancelled = [&options] { return options.cancel && options.cancel->load(); };
    if (cancelled()) {
        result.cancelled = true;
        result.error = sassCancelledMessage();
        return result;
    }
    if (cubin.isEmpty()) {
        result.error = QStringLiteral("no CUBIN to disassemble: a compute_ arch gives PTX only "
                                      "(the driver compiles it at load time); choose an sm_ arch "
                                      "to see SASS");
        return result;
    }
    const NvdisasmLocation location = findNvdisasm();
    if (location.path.isEmpty()) {
        result.error = location.notFoundMessage();
        return result;
    }
    result.nvdisasm = location.path;

    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/kernelpad-XXXXXX.cubin"));
    if (!file.open() || file.write(cubin) != cubin.size() || !file.flush()) {
        result.error = QStringLiteral("cannot write the CUBIN for nvdisasm to %1: %2")
                           .arg(file.fileName(), file.errorString());
        return result;
    }

    QElapsedTimer clock;
    clock.start();
    // Started first and read last: the listing's process decides when the text is shown.
    std::unique_ptr<LiveRangeProcess> liveRanges;
    if (options.liveRanges)
        liveRanges = std::make_unique<LiveRangeProcess>(location.path, file.fileName());
    QProcess process;
    result.processes = liveRanges ? 2 : 1;
    // -gi: the source line of every instruction, with the line that inlined it, so code from
    // a header (atomicAdd) still maps to the user's line. -ndf: no dataflow analysis, which
    // only labels the targets of branch-stack jumps and costs a third of nvdisasm's time
    // (on the H100: 437-624 ms with it, 292-459 ms without, the same instruction lines).
    process.start(location.path, {QStringLiteral("-c"), QStringLiteral("-gi"),
                                  QStringLiteral("-ndf"), file.fileName()});
    if (!process.waitForStarted(timeoutMs)) {
        result.error =
            QStringLiteral("%1 could not be started: %2").arg(location.path, process.errorString());
        return result;
    }
    QByteArray out;
    QByteArray err;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    bool tooLong = false;
    bool timedOut = false;
    while (process.state() != QProcess::NotRunning && !result.cancelled) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        // In slices when it can be cancelled: QProcess is read on this thread only, so the
        // flag is looked at between waits (a wait still ends at once when output comes).
        process.waitForReadyRead(
            int(options.cancel ? std::min<qint64>(left, kSassCancelPollMs) : left));
        out += process.readAllStandardOutput();
        err += process.readAllStandardError().left(kMaxSassBytes);
        if (out.size() > kMaxSassBytes) {
            tooLong = true;
            break;
        }
        result.cancelled = cancelled();
    }
    if (timedOut || tooLong || result.cancelled) {
        // The life ranges' process, if any, is killed by its destructor.
        process.kill();
        process.waitForFinished(timeoutMs);
        result.error = result.cancelled
                           ? sassCancelledMessage()
                           : nvdisasmStoppedMessage(location.path, timedOut, timeoutMs);
        return result;
    }
    out += process.readAllStandardOutput();
    err += process.readAllStandardError();
    result.processMs = double(clock.nsecsElapsed()) / 1e6;
    if (liveRanges)
        liveRanges->poll();
    const QString errText = QString::fromUtf8(err).trimmed();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        result.error = QStringLiteral("%1 failed (exit code %2)%3")
                           .arg(location.path)
                           .arg(process.exitCode())
                           .arg(errText.isEmpty() ? QString() : QStringLiteral(": ") + errText);
        return result;
    }
    clock.restart();
    result.listing = parseSass(QString::fromUtf8(out));
    result.parseMs = double(clock.nsecsElapsed()) / 1e6;
    if (result.listing.functions.isEmpty()) {
        result.error = QStringLiteral("%1 printed no functions%2")
                           .arg(location.path)
                           .arg(errText.isEmpty() ? QString() : QStringLiteral(": ") + errText);
        return result;
    }
    result.ok = true;
    if (options.listed)
        options.listed(result);
    if (liveRanges) {
        // nvdisasm's own time is until the later process ended: both ran side by side.
        result.processMs =
            std::max(result.processMs, liveRanges->finish(&result, deadline, options.cancel));
        if (result.cancelled)
            result.ok = false;
    }
    return result;
}

} // namespace kernelpad
