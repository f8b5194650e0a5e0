#include "app/cli/CliFormat.h"

#include "core/cuda/CudaError.h"
#include "core/run/Summary.h"

namespace kernelpad::cli {
namespace {

void printTable(QTextStream& out, const QVector<QStringList>& rows) {
    QVector<int> widths;
    for (const QStringList& row : rows)
        for (int c = 0; c < row.size(); ++c) {
            if (widths.size() <= c)
                widths.push_back(0);
            widths[c] = std::max(widths[c], int(row[c].size()));
        }
    for (const QStringList& row : rows) {
        QString line;
        for (int c = 0; c < row.size(); ++c)
            line += (c + 1 < row.size() ? row[c].leftJustified(widths[c] + 2) : row[c]);
        out << "  " << line.trimmed() << '\n';
    }
}

QString number(double v, int precision = 3) {
    return QString::number(v, 'g', precision);
}

/// The module's __constant__ and __device__ variables that the project declares, as a table;
/// those a toolkit header brought (cooperative_groups.h: about a thousand) only counted.
void printGlobals(QTextStream& out, const CompileResult& r) {
    QVector<QStringList> rows{{"global", "space", "type", "bytes", "symbol"}};
    qsizetype toolkit = 0;
    for (const ModuleGlobal& g : r.globals) {
        if (!g.fromProject) {
            ++toolkit;
            continue;
        }
        rows.push_back({g.name, g.spaceKeyword(), g.sourceType.isEmpty() ? g.ptxType : g.sourceType,
                        QString::number(g.sizeBytes), g.lowered});
    }
    if (rows.size() > 1) {
        out << "\nGlobals:\n";
        printTable(out, rows);
    }
    if (toolkit > 0)
        out << (rows.size() > 1 ? "" : "\n") << "Globals from the toolkit's headers: " << toolkit
            << " (not listed; --json lists every global)\n";
}

/// The driver JIT's line beside the compile's, for a module loaded from PTX (a virtual arch).
void printJit(QTextStream& out, const JitLog& jit, const QString& arch) {
    if (!jit.used)
        return;
    const QString ms = QString::number(jit.jitMs, 'f', 3) + QStringLiteral(" ms");
    if (jit.reused)
        out << "JIT: the " << arch << " PTX compiled for " << jit.target
            << " by an earlier run was kept (its JIT took " << ms << ")\n";
    else if (jit.failed())
        out << "JIT: the driver could not compile the " << arch << " PTX for " << jit.target << ": "
            << jit.failure << '\n';
    else
        out << "JIT: the driver compiled the " << arch << " PTX for " << jit.target << " in " << ms
            << " (module load " << QString::number(jit.loadMs, 'f', 3) << " ms)\n";
    if (!jit.infoLog.isEmpty())
        out << "JIT info log:\n" << jit.infoLog << '\n';
    if (!jit.errorLog.isEmpty())
        out << "JIT error log:\n" << jit.errorLog << '\n';
}

} // namespace

void printCompile(QTextStream& out, const CompileResult& r, bool withPtx) {
    if (r.language == SourceLanguage::Ptx) // "Assembled PTX for sm_90 with nvJitLink 13.0"
        out << (r.ok ? "Assembled PTX" : "PTX assembly failed") << " for " << r.arch << " with "
            << r.compiler << " in " << formatDurationMs(r.compileMs);
    else if (r.language == SourceLanguage::Nvvm)
        out << (r.ok ? "Compiled NVVM IR" : "NVVM IR compilation failed") << " for " << r.arch
            << " with " << r.compiler << " in " << formatDurationMs(r.compileMs);
    else if (r.compilerMissing) // the error below says what was tried and what to do
        out << "Compilation failed for " << r.arch << ": NVRTC not found";
    else if (!r.ok && r.arch.isEmpty() && r.nvrtcVersion.isEmpty())
        out << "No compilation was made"; // the runner was lost first: the error says why
    else
        out << (r.ok ? "Compiled" : "Compilation failed") << " for " << r.arch << " with NVRTC "
            << r.nvrtcVersion << " in " << formatDurationMs(r.compileMs);
    out << (r.cacheHit ? QStringLiteral(" (cache hit (%1))").arg(cacheTierName(r.fromCache))
                       : QString())
        << '\n';
    if (!r.error.isEmpty())
        out << "error: " << r.error << '\n';
    if (!r.diagnostics.isEmpty() && !r.compilerMissing) { // else the error again
        out << "\nDiagnostics:\n";
        QVector<QStringList> rows{{"location", "severity", "message"}};
        for (const Diagnostic& d : r.diagnostics) {
            QString where = d.file;
            if (d.line > 0)
                where += QStringLiteral(":%1").arg(d.line) +
                         (d.column > 0 ? QStringLiteral(":%1").arg(d.column) : QString());
            rows.push_back({where.isEmpty() ? QStringLiteral("-") : where, severityName(d.severity),
                            d.message});
        }
        printTable(out, rows);
    }
    if (!r.kernels.isEmpty()) {
        out << "\nKernels:\n";
        QVector<QStringList> rows{{"kernel", "lowered name", "parameters (PTX type:bytes)"}};
        for (const KernelInfo& k : r.kernels) {
            QStringList params;
            for (const PtxParam& p : k.params)
                params << QStringLiteral("%1:%2").arg(p.ptxType).arg(p.sizeBytes);
            rows.push_back({k.name, k.lowered, params.join(QStringLiteral(", "))});
        }
        printTable(out, rows);
    }
    printGlobals(out, r);
    if (withPtx && !r.ptx.isEmpty())
        out << "\nPTX:\n" << r.ptx << '\n';
    else if (!r.ok && !r.log.isEmpty() && r.diagnostics.isEmpty())
        out << "\nProgram log:\n" << r.log << '\n';
}

namespace {

/// The GPU's state while the samples ran and the launches' energy (Summary.cpp's
/// "telemetry", "clock.*", "power.max", "temperature.max", "timing.unstable", "energy.*").
void printTelemetry(QTextStream& out, const QVector<Summary>& summaries) {
    const auto find = [&](const char* key) {
        return findSummary(summaries, QString::fromLatin1(key));
    };
    const auto text = [&](const char* key) {
        const Summary* s = find(key);
        return s ? formatSummaryValue(*s) : QStringLiteral("-");
    };
    if (find("telemetry")) {
        out << "  telemetry: " << text("telemetry") << '\n';
        return;
    }
    out << "  GPU: " << text("power.max") << ", " << text("temperature.max") << ", SM clock spread "
        << text("clock.smSpread") << ", clocks locked: " << text("clock.locked") << '\n';
    if (find("clock.lockCommand"))
        out << "  to lock them: " << text("clock.lockCommand") << '\n';
    if (find("timing.unstable"))
        out << "  warning: unstable timing: " << text("timing.unstable") << '\n';
    if (find("energy.perLaunch")) {
        out << "  energy: " << text("energy.perLaunch") << " per launch, " << text("energy.power")
            << " average";
        if (find("energy.bytesPerJoule"))
            out << ", " << text("energy.bytesPerJoule");
        if (find("energy.flopsPerJoule"))
            out << ", " << text("energy.flopsPerJoule");
        out << '\n';
    } else if (find("energy.note")) {
        out << "  energy: " << text("energy.note") << '\n';
    }
}

} // namespace

void printRun(QTextStream& out, const RunResult& r) {
    if (r.device.ordinal >= 0)
        out << "Device " << r.device.ordinal << ": " << r.device.name << " (" << r.device.arch()
            << ")\n";
    printCompile(out, r.compile, false);
    printJit(out, r.jit, r.compile.arch);
    const QVector<Summary> summaries = summarize(r);
    const auto find = [&](const char* key) {
        return findSummary(summaries, QString::fromLatin1(key));
    };
    const auto text = [&](const char* key) {
        const Summary* s = find(key);
        return s ? formatSummaryValue(*s) : QStringLiteral("-");
    };
    const auto value = [&](const char* key) {
        const Summary* s = find(key);
        return s ? s->value : 0.0;
    };
    if (const Summary* samples = find("samples")) {
        out << "\nTiming (" << formatSummaryValue(*samples) << " repetitions, " << r.launch.grid[0]
            << "x" << r.launch.grid[1] << "x" << r.launch.grid[2] << " blocks of "
            << r.launch.block[0] << "x" << r.launch.block[1] << "x" << r.launch.block[2] << "):\n";
        // The table: every summary that is a column, in order.
        QStringList names, values;
        for (const Summary& s : summaries) {
            if (!s.column)
                continue;
            names << s.name;
            values << formatSummaryValue(s);
        }
        printTable(out, {names, values});
        // The notes under it.
        out << "  " << text("timing.mode") << " timing"
            << (find("timing.blockingKernel")->text == QLatin1String("yes")
                    ? ", queued behind a blocking kernel"
                    : "");
        if (find("timing.stopReason"))
            out << ", stopped: " << text("timing.stopReason");
        if (find("clock.sm"))
            out << ", SM clock " << text("clock.sm") << " (default "
                << QString::number(value("clock.smDefault") / 1e6, 'f', 0) << ")";
        out << '\n';
        if (value("samples.throttled") > 0)
            out << "  warning: the GPU was throttling during " << text("samples.throttled")
                << " of " << text("samples") << " samples (SM clock under 75 % of its default)\n";
        printTelemetry(out, summaries);
        if (value("blocking.timeouts") > 0)
            out << "  warning: the blocking kernel gave up waiting " << text("blocking.timeouts")
                << " time(s); those samples may include host launch time\n";
        // Under half a percent rounds to "0 %", which says nothing.
        constexpr double kSmallestShownShare = 0.005;
        if (find("ceiling.share") && value("ceiling.share") >= kSmallestShownShare)
            out << "  " << text("ceiling.share") << " of the device's copy ceiling ("
                << text("ceiling") << ")\n";
        if (find("flops"))
            out << "  " << text("flops") << '\n';
        // The library's time over the kernel's: above 1 the kernel is faster.
        if (const QString ratio = r.baseline.ratioText(r.timing.medianMs); !ratio.isEmpty())
            out << "  " << ratio << ": " << r.baseline.library << "'s median "
                << formatDurationMs(r.baseline.timing.medianMs)
                << " over the kernel's (above 1 the kernel is faster)\n";
        if (value("uploads.skipped") > 0)
            out << "  " << text("uploads.skipped")
                << " unchanged input buffer(s) kept on the device (" << text("uploads.skippedBytes")
                << " not uploaded)\n";
        if (value("verify.time") > 0)
            out << "  verified in " << text("verify.time") << '\n';
        out << "  registers " << text("resources.registers") << ", static shared "
            << text("resources.staticShared") << ", local " << text("resources.local")
            << ", occupancy " << text("occupancy") << "\n";
    }
    // Grouped values (a pipeline's steps and graph), each group under its heading.
    QStringList groups;
    for (const Summary& s : summaries)
        if (!s.group.isEmpty() && !groups.contains(s.group))
            groups << s.group;
    for (const QString& group : groups) {
        out << '\n' << group << ":\n";
        QVector<QStringList> rows;
        for (const Summary& s : summaries)
            if (s.group == group)
                rows.push_back({s.name, formatSummaryValue(s)});
        printTable(out, rows);
    }
    if (!r.verification.isEmpty()) {
        out << "\nVerification:\n";
        QVector<QStringList> rows{{"buffer", "result", "method", "max abs err", "max rel err",
                                   "max ulp err", "mismatches", "NaN", "unwritten"}};
        for (const BufferVerification& v : r.verification)
            rows.push_back({v.buffer, v.passed ? "PASS" : "FAIL", v.method, number(v.maxAbsError),
                            number(v.maxRelError), number(v.maxUlpError),
                            QString::number(v.mismatches), QString::number(v.nanCount),
                            QString::number(v.unwritten)});
        printTable(out, rows);
        for (const BufferVerification& v : r.verification) {
            if (!v.error.isEmpty())
                out << "  " << v.buffer << ": " << v.error << '\n';
            if (!v.failure.isEmpty())
                out << "  " << v.failure << '\n';
            for (const QString& warning : v.warnings)
                out << "  warning: " << warning << '\n';
            if (!v.advice.isEmpty())
                out << "  " << v.buffer << ": " << v.advice << '\n';
            if (!v.firstMismatches.isEmpty()) {
                out << "  first mismatches in " << v.buffer << ":\n";
                QVector<QStringList> mm{{"index", "got", "expected"}};
                for (const Mismatch& m : v.firstMismatches)
                    mm.push_back(
                        {QString::number(m.index), number(m.got, 9), number(m.expected, 9)});
                printTable(out, mm);
            }
        }
    }
    printConsole(out, r);
    printSanitizer(out, r);
    if (!r.error.isEmpty())
        out << "\nerror: " << r.error << '\n';
    else
        out << "\nOK in " << formatDurationMs(r.totalMs) << '\n';
}

QString terminalSafe(const QString& text) {
    QString safe;
    safe.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\n' || u == u'\t' || (u >= 0x20 && u != 0x7f && !(u >= 0x80 && u < 0xa0)))
            safe += c;
        else
            safe += QStringLiteral("\\x%1").arg(int(u), 2, 16, QLatin1Char('0'));
    }
    return safe;
}

void printConsole(QTextStream& out, const RunResult& r) {
    const ConsoleOutput& c = r.console;
    if (c.isEmpty())
        return;
    const KernelInfo* kernel = r.compile.findKernel(r.kernelLowered);
    out << "\nKernel output of the verified launch (" << (kernel ? kernel->name : r.kernelLowered)
        << ", " << formatBytes(c.totalBytes) << ", " << c.text.count(QLatin1Char('\n'))
        << " lines):\n";
    out << terminalSafe(c.text);
    if (!c.text.endsWith(QLatin1Char('\n')))
        out << '\n';
    if (c.droppedBytes() > 0)
        out << "... " << formatBytes(c.droppedBytes()) << " more not kept (the first "
            << formatBytes(kMaxConsoleBytes) << " are)\n";
    if (c.laterBytes > 0)
        out << "(the launches after the verified one printed " << formatBytes(c.laterBytes)
            << " more, not shown)\n";
}

void printSanitizer(QTextStream& out, const RunResult& r) {
    if (r.sanitizerTool == SanitizerTool::None)
        return;
    const int errors = r.sanitizerErrorCount();
    out << "\ncompute-sanitizer " << sanitizerToolName(r.sanitizerTool) << ": "
        << (errors > 0 ? QStringLiteral("%1 error(s)").arg(errors) : QStringLiteral("no errors"));
    if (r.sanitizerErrors < 0)
        out << " (no summary: the report may be incomplete)";
    out << '\n';
    for (const SanitizerReport& s : r.sanitizer) {
        const QString where = s.file.isEmpty() ? QStringLiteral("compute-sanitizer")
                              : s.line > 0     ? QStringLiteral("%1:%2").arg(s.file).arg(s.line)
                                               : s.file;
        out << where << ": " << severityName(s.severity) << ": " << s.message() << '\n';
        QStringList context;
        if (!s.kernel.isEmpty())
            context << QStringLiteral("in kernel %1").arg(s.kernel);
        if (s.thread)
            context << QStringLiteral("thread (%1,%2,%3)")
                           .arg((*s.thread)[0])
                           .arg((*s.thread)[1])
                           .arg((*s.thread)[2]);
        if (s.block)
            context << QStringLiteral("block (%1,%2,%3)")
                           .arg((*s.block)[0])
                           .arg((*s.block)[1])
                           .arg((*s.block)[2]);
        if (!context.isEmpty())
            out << "    " << context.join(QStringLiteral(", ")) << '\n';
    }
    if (!r.sanitizerNote.isEmpty())
        out << "note: " << r.sanitizerNote << '\n';
}

void printDevices(QTextStream& out, const QVector<DeviceInfo>& devices) {
    for (const DeviceInfo& d : devices) {
        out << "Device " << d.ordinal << '\n';
        QVector<QStringList> rows;
        for (const auto& [label, value] : d.describe())
            rows.push_back({label, value});
        printTable(out, rows);
    }
}

} // namespace kernelpad::cli
