#include "core/compile/SassLiveRanges.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

namespace kernelpad {

namespace {

/// `//--------------------- .text.unrolled      ------` opens a function of the life-range
/// listing; any other such header closes it.
const QRegularExpression& liveRangeSectionHeader() {
    static const QRegularExpression re(QStringLiteral(R"(^\s*//-+\s+(\S+)\s+-+\s*$)"));
    return re;
}

/// `/*0a30*/  IMAD R2, ... ;  // |  4  |  1  |  2  |`: the address.
const QRegularExpression& liveRangeInstruction() {
    static const QRegularExpression re(QStringLiteral(R"(^\s*/\*([0-9a-fA-F]{1,15})\*/)"));
    return re;
}

enum class LiveColumn { Gprs, Predicates, Uniforms, Other };

/// nvdisasm's column order, used until a header names them.
const QVector<LiveColumn> kDefaultLiveColumns{LiveColumn::Gprs, LiveColumn::Predicates,
                                              LiveColumn::Uniforms};

/// The cells of the trailing `// | a | b | c |` table of `line`; empty when it has none (a
/// `// +----+` rule, a line without the table).
QVector<QStringView> liveTableCells(QStringView line) {
    const qsizetype at = line.indexOf(QLatin1String("// |"));
    if (at < 0)
        return {};
    QStringView table = line.mid(at + 3).trimmed();
    if (!table.endsWith(u'|') || table.size() < 2)
        return {};
    table = table.mid(1, table.size() - 2);
    QVector<QStringView> cells;
    for (const QStringView cell : table.split(u'|'))
        cells.append(cell.trimmed());
    return cells;
}

LiveColumn liveColumnNamed(QStringView name) {
    if (name == QLatin1String("GPR"))
        return LiveColumn::Gprs;
    if (name == QLatin1String("PRED"))
        return LiveColumn::Predicates;
    if (name == QLatin1String("UGPR"))
        return LiveColumn::Uniforms;
    return LiveColumn::Other;
}

/// The count a cell starts with; 0 for an empty cell; -1 when it holds no count.
int liveCellCount(QStringView cell) {
    constexpr qsizetype kMaxDigits = 6; // far beyond any register file
    if (cell.isEmpty())
        return 0;
    qsizetype digits = 0;
    while (digits < cell.size() && cell[digits].isDigit() && cell[digits].unicode() < 128)
        ++digits;
    if (digits == 0 || digits > kMaxDigits)
        return -1;
    return cell.left(digits).toInt();
}

/// The counts of an instruction's cells, or nullopt when a cell of a known column holds none.
std::optional<LiveRegisters> liveCountsOf(const QVector<QStringView>& cells,
                                          const QVector<LiveColumn>& columns) {
    LiveRegisters live;
    bool any = false;
    for (int i = 0; i < cells.size() && i < columns.size(); ++i) {
        if (columns[i] == LiveColumn::Other)
            continue;
        const int count = liveCellCount(cells[i]);
        if (count < 0)
            return std::nullopt;
        any = true;
        if (columns[i] == LiveColumn::Gprs)
            live.gprs = count;
        else if (columns[i] == LiveColumn::Predicates)
            live.predicates = count;
        else
            live.uniforms = count;
    }
    return any ? std::optional<LiveRegisters>(live) : std::nullopt;
}

/// A header row names its columns (`| GPR | PRED | UGPR |`); the `|  #  |` row does not.
bool isLiveHeaderRow(const QVector<QStringView>& cells) {
    return std::any_of(cells.begin(), cells.end(),
                       [](QStringView cell) { return liveColumnNamed(cell) != LiveColumn::Other; });
}

} // namespace

const LiveRangeFunction* LiveRangeListing::findFunction(const QString& name) const {
    for (const LiveRangeFunction& f : functions) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

int LiveRangeListing::instructionCount() const {
    int count = 0;
    for (const LiveRangeFunction& f : functions)
        count += int(f.byAddress.size());
    return count;
}

LiveRangeListing parseLiveRanges(const QString& text) {
    LiveRangeListing listing;
    LiveRangeFunction* current = nullptr;
    QVector<LiveColumn> columns = kDefaultLiveColumns;
    qsizetype start = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf(u'\n', start);
        if (end < 0)
            end = text.size();
        const QStringView line = QStringView(text).mid(start, end - start);
        start = end + 1;
        const QStringView trimmed = line.trimmed();
        if (trimmed.startsWith(QLatin1String("//-"))) {
            const QRegularExpressionMatch header =
                liveRangeSectionHeader().match(trimmed.toString());
            if (header.hasMatch()) {
                const QString section = header.captured(1);
                current = nullptr;
                if (section.startsWith(QLatin1String(".text.")) && section.size() > 6) {
                    listing.functions.append({section.mid(6), {}});
                    current = &listing.functions.last();
                }
                continue;
            }
        }
        if (!current)
            continue;
        const QVector<QStringView> cells = liveTableCells(line);
        if (cells.isEmpty())
            continue;
        // The address comes first: `/*` and at most 15 hex digits.
        constexpr qsizetype kAddressPrefix = 20;
        const QRegularExpressionMatch m =
            liveRangeInstruction().match(trimmed.left(kAddressPrefix).toString());
        if (!m.hasMatch()) {
            if (isLiveHeaderRow(cells)) {
                columns.clear();
                for (const QStringView cell : cells)
                    columns.append(liveColumnNamed(cell));
            }
            continue;
        }
        bool ok = false;
        const qint64 address = m.captured(1).toLongLong(&ok, 16);
        if (!ok)
            continue;
        if (const std::optional<LiveRegisters> live = liveCountsOf(cells, columns))
            current->byAddress.insert(address, *live);
    }
    return listing;
}

int joinLiveRanges(SassListing* listing, const LiveRangeListing& ranges) {
    int joined = 0;
    for (SassFunction& function : listing->functions) {
        const LiveRangeFunction* counts = ranges.findFunction(function.name);
        for (SassInstruction& instruction : function.instructions) {
            instruction.live.reset();
            if (!counts)
                continue;
            const auto it = counts->byAddress.constFind(instruction.address);
            if (it == counts->byAddress.cend())
                continue;
            instruction.live = it.value();
            ++joined;
        }
    }
    return joined;
}

QStringList liveRangeArguments(const QString& path) {
    // -c: the code sections only, as the listing's process prints them. count mode: the
    // numbers of live registers, not a column per register.
    return {QStringLiteral("-c"), QStringLiteral("--print-life-ranges"),
            QStringLiteral("--life-range-mode=count"), path};
}

LiveRangeProcess::LiveRangeProcess(const QString& nvdisasm, const QString& cubinPath)
    : m_nvdisasm(nvdisasm)
    , m_output(QDir::tempPath() + QStringLiteral("/kernelpad-XXXXXX.life"))
    , m_started(std::chrono::steady_clock::now()) {
    if (!m_output.open()) {
        m_startError = QStringLiteral("cannot write nvdisasm's life ranges to %1: %2")
                           .arg(m_output.fileName(), m_output.errorString());
        return;
    }
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_output.fileName());
    m_process->start(nvdisasm, liveRangeArguments(cubinPath));
}

LiveRangeProcess::~LiveRangeProcess() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(kNvdisasmTimeoutMs);
    }
}

void LiveRangeProcess::poll() {
    if (!m_process || m_endMs >= 0)
        return;
    if (m_process->state() == QProcess::NotRunning || m_process->waitForFinished(0))
        m_endMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_started)
                .count();
}

double LiveRangeProcess::finish(SassResult* result, std::chrono::steady_clock::time_point deadline,
                                const std::atomic_bool* cancel) {
    const auto sinceStart = [this] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                         m_started)
            .count();
    };
    if (!m_startError.isEmpty() || !m_process) {
        result->liveRangeError = m_startError;
        return 0;
    }
    const QString tool = m_nvdisasm + QStringLiteral(" --print-life-ranges");
    if (m_endMs < 0) {
        bool ended = false;
        bool stopped = false;
        while (!ended && !stopped) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - std::chrono::steady_clock::now())
                                  .count();
            // In slices when it can be cancelled, as disassembleCubin() waits (Sass.cpp).
            const qint64 slice = cancel ? std::min<qint64>(left, kSassCancelPollMs) : left;
            ended = m_process->waitForFinished(int(std::max<qint64>(slice, 1))) ||
                    m_process->state() == QProcess::NotRunning;
            stopped = (cancel && cancel->load()) || left <= slice;
        }
        m_endMs = sinceStart();
        if (!ended) {
            const bool cancelled = cancel && cancel->load();
            m_process->kill();
            m_process->waitForFinished(kNvdisasmTimeoutMs);
            result->cancelled = cancelled;
            if (cancelled)
                result->error = sassCancelledMessage();
            result->liveRangeError =
                cancelled ? sassCancelledMessage()
                          : QStringLiteral("%1 did not finish in time; stopped").arg(tool);
            return m_endMs;
        }
    }
    result->liveRangeProcessMs = m_endMs;
    if (m_process->error() == QProcess::FailedToStart) {
        result->liveRangeError =
            QStringLiteral("%1 could not be started: %2").arg(tool, m_process->errorString());
        return m_endMs;
    }
    QFile file(m_output.fileName());
    if (!file.open(QIODevice::ReadOnly)) {
        result->liveRangeError = QStringLiteral("cannot read %1's output from %2: %3")
                                     .arg(tool, file.fileName(), file.errorString());
        return m_endMs;
    }
    if (file.size() > kMaxSassBytes) {
        result->liveRangeError = QStringLiteral("%1 printed more than %2 MiB; not read")
                                     .arg(tool)
                                     .arg(kMaxSassBytes / (1024 * 1024));
        return m_endMs;
    }
    const QString text = QString::fromUtf8(file.readAll());
    if (m_process->exitStatus() != QProcess::NormalExit || m_process->exitCode() != 0) {
        result->liveRangeError = QStringLiteral("%1 failed (exit code %2): %3")
                                     .arg(tool)
                                     .arg(m_process->exitCode())
                                     .arg(text.trimmed().left(500));
        return m_endMs;
    }
    QElapsedTimer clock;
    clock.start();
    const int joined = joinLiveRanges(&result->listing, parseLiveRanges(text));
    result->parseMs += double(clock.nsecsElapsed()) / 1e6;
    if (joined == 0) {
        result->liveRangeError =
            QStringLiteral("%1 printed no live-register counts for the listing's instructions")
                .arg(tool);
        return m_endMs;
    }
    result->liveRanges = true;
    return m_endMs;
}

} // namespace kernelpad
