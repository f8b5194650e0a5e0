#include "core/profile/Ncu.h"

#include "core/compile/Toolkit.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>

namespace kernelpad {
namespace {

/// A page of a report of one launch is at most a few MB (the full set's raw page is ~100 KB);
/// anything larger is not what was asked for.
constexpr qint64 kMaxPageBytes = qint64(64) << 20;

/// Runs `ncu args` and returns its stdout, or fails with its stderr or why it did not run.
std::optional<QString> runNcu(const QString& ncu, const QStringList& args, int timeoutMs,
                              QString* error) {
    QProcess p;
    p.start(ncu, args);
    if (!p.waitForStarted(timeoutMs)) {
        *error = QStringLiteral("cannot start %1: %2").arg(ncu, p.errorString());
        return std::nullopt;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        *error = QStringLiteral("`ncu %1` did not finish in %2 s and was stopped")
                     .arg(args.join(QLatin1Char(' ')))
                     .arg(timeoutMs / 1000);
        return std::nullopt;
    }
    const QByteArray out = p.readAllStandardOutput().left(kMaxPageBytes);
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        *error = QStringLiteral("`ncu %1` failed (exit code %2)%3")
                     .arg(args.join(QLatin1Char(' ')))
                     .arg(p.exitCode())
                     .arg(err.isEmpty() ? QString() : QStringLiteral(": ") + err.left(2000));
        return std::nullopt;
    }
    return QString::fromUtf8(out);
}

} // namespace

QString NcuLocation::notFoundMessage() const {
    return QStringLiteral("ncu (Nsight Compute) was not found, so the kernel cannot be "
                          "profiled; looked in: %1. It ships with the CUDA toolkit (set "
                          "CUDA_HOME to the toolkit's folder, put ncu on PATH, or set "
                          "KERNELPAD_NCU to its path).")
        .arg(looked.isEmpty() ? QStringLiteral("(nowhere: no CUDA_HOME, CUDA_PATH, toolkit or "
                                               "PATH)")
                              : looked.join(QStringLiteral(", ")));
}

NcuLocation findNcu() {
    const ToolkitProgram program =
        findToolkitProgram(QStringLiteral("ncu"), qEnvironmentVariable("KERNELPAD_NCU"));
    return NcuLocation{program.path, program.looked};
}

QString escapeNcuRegex(const QString& name) {
    return QRegularExpression::escape(name);
}

QStringList ncuExtraSections() {
    // The hierarchical charts' metrics are what hierarchicalRoofline() reads: L1 and L2
    // bandwidth with their peaks, half-precision and tensor-pipe work. The double-precision
    // chart asks for no counter the plain roofline does not, so it costs no pass. The full set
    // has all four already; naming them again is harmless.
    return {QStringLiteral("SourceCounters"),
            QStringLiteral("WarpStateStats"),
            QStringLiteral("SpeedOfLight_RooflineChart"),
            QStringLiteral("SpeedOfLight_HierarchicalSingleRooflineChart"),
            QStringLiteral("SpeedOfLight_HierarchicalHalfRooflineChart"),
            QStringLiteral("SpeedOfLight_HierarchicalTensorRooflineChart"),
            QStringLiteral("SpeedOfLight_HierarchicalDoubleRooflineChart")};
}

QStringList ncuExtraMetrics() {
    return {QStringLiteral("dram__bytes.sum"),
            QStringLiteral("dram__bytes.sum.per_second"),
            QStringLiteral("lts__t_bytes.sum"),
            QStringLiteral("l1tex__t_bytes.sum"),
            QStringLiteral("lts__t_sector_hit_rate.pct"),
            QStringLiteral("l1tex__t_sector_hit_rate.pct")};
}

QStringList ncuProfileArguments(ProfileSet set, const QString& mangledName,
                                const QString& reportBase, const QString& logFile) {
    QStringList args{QStringLiteral("--kernel-name-base"),
                     QStringLiteral("mangled"),
                     QStringLiteral("-k"),
                     QStringLiteral("regex:^%1$").arg(escapeNcuRegex(mangledName)),
                     QStringLiteral("-c"),
                     QStringLiteral("1"),
                     QStringLiteral("--set"),
                     profileSetName(set)};
    for (const QString& section : ncuExtraSections())
        args << QStringLiteral("--section") << section;
    args << QStringLiteral("--metrics")
         << ncuExtraMetrics().join(QLatin1Char(','))
         // The per-line page needs the source in the report: NVRTC's source is no file on disk.
         << QStringLiteral("--import-source") << QStringLiteral("yes")
         << QStringLiteral("--log-file") << logFile << QStringLiteral("-f") << QStringLiteral("-o")
         << reportBase;
    return args;
}

QStringList ncuImportArguments(const QString& report, NcuPage page) {
    QStringList args{QStringLiteral("-i"), report, QStringLiteral("--csv"),
                     QStringLiteral("--page")};
    switch (page) {
    case NcuPage::Details:
        args << QStringLiteral("details");
        break;
    case NcuPage::Raw:
        args << QStringLiteral("raw");
        break;
    case NcuPage::Source:
        args << QStringLiteral("source") << QStringLiteral("--print-source")
             << QStringLiteral("cuda,sass");
        break;
    }
    return args;
}

NcuLogDiagnosis diagnoseNcuLog(const QString& log) {
    NcuLogDiagnosis d;
    bool inKernelList = false;
    static const QRegularExpression listItem(QStringLiteral("^\\s*\\d+\\.\\s+(\\S.*)$"));
    for (const QString& raw : log.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.contains(QLatin1String("ERR_NVGPUCTRPERM")))
            d.counterPermission = true;
        if (line.startsWith(QLatin1String("==ERROR=="))) {
            d.errors << line;
            inKernelList = false;
            continue;
        }
        if (line.startsWith(QLatin1String("==WARNING=="))) {
            if (line.contains(QLatin1String("No kernels were profiled"))) {
                d.noKernelProfiled = true;
                inKernelList = true;
            } else {
                d.warnings << line;
                inKernelList = false;
            }
            continue;
        }
        if (inKernelList) {
            if (line == QLatin1String("Available Kernels:"))
                continue;
            const QRegularExpressionMatch m = listItem.match(line);
            if (m.hasMatch())
                d.availableKernels << m.captured(1).trimmed();
            else
                inKernelList = false;
        }
    }
    return d;
}

QString counterPermissionMessage() {
    return QStringLiteral(
        "ncu may not read the GPU's performance counters as this user (ERR_NVGPUCTRPERM). Run "
        "KernelPad as root, or allow every user: put `options nvidia "
        "NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/ (for example "
        "/etc/modprobe.d/nvidia-profiling.conf), rebuild the initramfs if your distribution "
        "loads the driver from it, and reboot. See "
        "https://developer.nvidia.com/ERR_NVGPUCTRPERM");
}

QString noKernelProfiledMessage(const QString& filteredName, const NcuLogDiagnosis& log) {
    QString m = QStringLiteral("ncu profiled no launch: the filter was the lowered name '%1' "
                               "(--kernel-name-base mangled), and no kernel of that name ran")
                    .arg(filteredName);
    if (!log.availableKernels.isEmpty())
        m += QStringLiteral("; the kernels that ran: %1")
                 .arg(log.availableKernels.join(QStringLiteral(", ")));
    else
        m += QStringLiteral("; no kernel ran at all (the run ended before its launch)");
    return m;
}

QString parseNcuVersion(const QString& versionOutput) {
    static const QRegularExpression version(QStringLiteral("Version\\s+(\\d[\\w.]*)"));
    const QRegularExpressionMatch m = version.match(versionOutput);
    return m.hasMatch() ? m.captured(1) : QString();
}

QString ncuVersion(const QString& ncu, int timeoutMs) {
    QString error;
    const std::optional<QString> out =
        runNcu(ncu, {QStringLiteral("--version")}, timeoutMs, &error);
    return out ? parseNcuVersion(*out) : QString();
}

std::optional<NcuPages> importNcuReport(const QString& ncu, const QString& report, int timeoutMs,
                                        QString* error) {
    NcuPages pages;
    const std::pair<NcuPage, QString*> wanted[] = {{NcuPage::Details, &pages.details},
                                                   {NcuPage::Raw, &pages.raw},
                                                   {NcuPage::Source, &pages.source}};
    for (const auto& [page, out] : wanted) {
        QString why;
        const std::optional<QString> text =
            runNcu(ncu, ncuImportArguments(report, page), timeoutMs, &why);
        if (!text) {
            if (page == NcuPage::Source) {
                // Without per-line counters the rest of the profile still stands.
                pages.source =
                    QStringLiteral("==WARNING== the source page could not be read: ") + why;
                continue;
            }
            *error = QStringLiteral("cannot read the profile back: %1").arg(why);
            return std::nullopt;
        }
        *out = *text;
    }
    return pages;
}

} // namespace kernelpad
