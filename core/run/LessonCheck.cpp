#include "core/run/LessonCheck.h"

#include "core/run/Summary.h"

#include <QStringList>

#include <cmath>

namespace kernelpad {

namespace {

/// The run's median, bandwidth and FLOP rate as the timing panel and the CLI format them.
QStringList measuredFigures(const RunResult& result) {
    const QVector<Summary> summaries = summarize(result);
    QStringList figures;
    for (const char* key : {"time.median", "bandwidth", "flops"}) {
        const Summary* s = findSummary(summaries, QLatin1String(key));
        if (s && std::isfinite(s->value) && s->value > 0)
            figures << formatSummaryValue(*s);
    }
    return figures;
}

QString verificationFailure(const RunResult& result) {
    QStringList parts;
    for (const BufferVerification& v : result.verification) {
        if (v.passed)
            continue;
        if (!v.error.isEmpty())
            parts << QStringLiteral("%1 could not be checked: %2").arg(v.buffer, v.error);
        else if (v.unwritten > 0 && v.unwritten == v.mismatches)
            parts << QStringLiteral("%1: %2 of %3 elements were never written")
                         .arg(v.buffer)
                         .arg(v.unwritten)
                         .arg(v.checked);
        else
            parts << QStringLiteral("%1: %2 of %3 elements differ from the expected values")
                         .arg(v.buffer)
                         .arg(v.mismatches)
                         .arg(v.checked);
    }
    return parts.isEmpty() ? QStringLiteral("Verification failed.")
                           : QStringLiteral("Verification failed: %1.").arg(parts.join("; "));
}

QString formatMs(double ms) {
    Summary s;
    s.hint = SummaryHint::Duration;
    s.value = ms / 1000.0;
    return formatSummaryValue(s);
}

/// A lesson's "minBaselineRatio": false with the failure set when the run did not measure its
/// library baseline or did not reach the ratio; the ratio joins the summary either way.
bool judgeBaselineRatio(double required, const RunResult& result, LessonVerdict* verdict) {
    const BaselineResult& b = result.baseline;
    const double ratio = b.ratio(result.timing.medianMs);
    if (!(ratio > 0)) {
        verdict->failure =
            QStringLiteral("Verified, but the %1 baseline was not measured%2, so the ratio to it "
                           "is unknown.")
                .arg(b.library.isEmpty() ? QStringLiteral("library") : b.library,
                     b.error.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(b.error));
        return false;
    }
    const QString reached = b.ratioText(result.timing.medianMs);
    verdict->summary += (verdict->summary.isEmpty() ? QString() : QStringLiteral(", ")) + reached;
    if (ratio >= required)
        return true;
    verdict->failure = QStringLiteral("Verified, but %1, at least %2 %3 needed.")
                           .arg(reached, formatRatio(required), b.library);
    return false;
}

} // namespace

QString speedupText(double speedup) {
    const double rounded = std::round(speedup * 10) / 10;
    return (rounded == std::floor(rounded) ? QString::number(rounded, 'f', 0)
                                           : QString::number(rounded, 'f', 1)) +
           QStringLiteral("×");
}

std::optional<double> baselineMedianMs(const RunResult& result) {
    if (result.status != RunStatus::Ok || result.sanitizerTool != SanitizerTool::None ||
        !result.verified() || result.timing.reps() == 0 || !(result.timing.medianMs > 0))
        return std::nullopt;
    return result.timing.medianMs;
}

LessonVerdict judgeLessonRun(const Lesson& lesson, const RunResult& result,
                             std::optional<double> starterMedianMs) {
    LessonVerdict verdict;
    if (result.sanitizerTool != SanitizerTool::None || result.status == RunStatus::Cancelled)
        return verdict;
    verdict.state = LessonVerdict::State::Failed;
    switch (result.status) {
    case RunStatus::Ok:
        break;
    case RunStatus::VerificationFailed:
        verdict.failure = verificationFailure(result);
        return verdict;
    case RunStatus::CompileError:
        verdict.failure = QStringLiteral("The kernel did not compile: see Diagnostics.");
        return verdict;
    default:
        verdict.failure = QStringLiteral("The run failed (%1): %2")
                              .arg(runStatusName(result.status), result.error);
        return verdict;
    }
    if (result.verification.isEmpty()) {
        verdict.failure = QStringLiteral("The run checked no output, so nothing shows the kernel "
                                         "is right: keep the lesson's verification.");
        return verdict;
    }
    if (!result.verified()) {
        verdict.failure = verificationFailure(result);
        return verdict;
    }
    QStringList figures = measuredFigures(result);
    if (lesson.kind == LessonKind::Speed) {
        if (result.timing.reps() == 0 || !(result.timing.medianMs > 0)) {
            verdict.failure = QStringLiteral("The run was not timed, so its speed is unknown.");
            return verdict;
        }
        if (!starterMedianMs || !(*starterMedianMs > 0)) {
            verdict.state = LessonVerdict::State::NeedsBaseline;
            return verdict;
        }
        const double speedup = *starterMedianMs / result.timing.medianMs;
        const double required = lesson.requiredSpeedup.value_or(1.0);
        verdict.speedup = speedup;
        figures << QStringLiteral("%1 faster than the starter (%2)")
                       .arg(speedupText(speedup), formatMs(*starterMedianMs));
        verdict.summary = figures.join(QStringLiteral(", "));
        if (speedup < required) {
            verdict.failure = QStringLiteral("Verified, but %1 faster than the starter, %2 needed.")
                                  .arg(speedupText(speedup), speedupText(required));
            return verdict;
        }
    } else {
        verdict.summary = figures.isEmpty()
                              ? QStringLiteral("verified")
                              : figures.join(QStringLiteral(", ")) + QStringLiteral(", verified");
    }
    if (lesson.minBaselineRatio && !judgeBaselineRatio(*lesson.minBaselineRatio, result, &verdict))
        return verdict;
    verdict.state = LessonVerdict::State::Complete;
    return verdict;
}

QString lessonRecordText(const LessonRecord& record) {
    QString text = QStringLiteral("Recorded on %1, %2: solution %3")
                       .arg(record.device, record.date, formatMs(record.solution.medianMs));
    QStringList extras;
    if (record.solution.bandwidthGBs)
        extras << QStringLiteral("%1 GB/s").arg(*record.solution.bandwidthGBs, 0, 'f', 1);
    if (record.solution.gflops)
        extras << QStringLiteral("%1 GFLOP/s").arg(*record.solution.gflops, 0, 'f', 1);
    if (record.speedup)
        extras << QStringLiteral("%1 the starter").arg(speedupText(*record.speedup));
    if (!extras.isEmpty())
        text += QStringLiteral(" (%1)").arg(extras.join(QStringLiteral(", ")));
    return text;
}

} // namespace kernelpad
