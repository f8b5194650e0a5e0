#include "core/engine/TestRunLesson.h"

#include "core/verify/Verify.h"

#include <algorithm>

namespace kernelpad {

namespace {

/// The verification rows a case's "verify" check reads (the guard rows are the canary's).
QVector<const BufferVerification*> verifiedOutputs(const RunResult& run) {
    QVector<const BufferVerification*> rows;
    for (const BufferVerification& v : run.verification)
        if (v.method != QLatin1String("guard bytes"))
            rows << &v;
    return rows;
}

/// Whether element `index` of `buffer` still holds the pattern outputs are filled with before
/// the launch. From the counts when they decide it, else from the kept output's bytes.
bool neverWritten(const BufferVerification& v, const Mismatch& m, const RunResult& run) {
    if (v.unwritten == 0)
        return false;
    if (v.unwritten == v.mismatches)
        return true;
    const auto out = std::find_if(run.outputs.cbegin(), run.outputs.cend(),
                                  [&](const OutputBuffer& o) { return o.name == v.buffer; });
    if (out == run.outputs.cend() || out->isKept() || out->type.isStruct())
        return false;
    const qint64 size = out->type.sizeBytes();
    if (size <= 0 || m.index < 0 || (m.index + 1) * size > out->data.size())
        return false;
    const char* bytes = out->data.constData() + m.index * size;
    return std::all_of(bytes, bytes + size,
                       [](char b) { return static_cast<unsigned char>(b) == kPoisonByte; });
}

/// "element 32 never written, and 3 more elements are wrong" for the first failed output.
QString mismatchText(const RunResult& run) {
    const QVector<const BufferVerification*> rows = verifiedOutputs(run);
    const auto failed = std::find_if(rows.cbegin(), rows.cend(), [](const BufferVerification* v) {
        return !v->passed && v->error.isEmpty() && !v->firstMismatches.isEmpty();
    });
    if (failed == rows.cend())
        return {};
    const BufferVerification& v = **failed;
    const Mismatch& m = v.firstMismatches.first();
    QString text = neverWritten(v, m, run)
                       ? QStringLiteral("element %1 never written").arg(m.index)
                       : QStringLiteral("element %1 is %2, expected %3")
                             .arg(m.index)
                             .arg(describeValue(m.got), describeValue(m.expected));
    // Several outputs: say which one; with one, "element 32" is unambiguous.
    if (rows.size() > 1)
        text = v.buffer + QStringLiteral(": ") + text;
    if (v.mismatches > 1)
        text += v.mismatches == 2
                    ? QStringLiteral(", and 1 more element is wrong")
                    : QStringLiteral(", and %1 more elements are wrong").arg(v.mismatches - 1);
    return text;
}

QString firstLine(const QString& text) {
    return text.section(QLatin1Char('\n'), 0, 0);
}

} // namespace

QString caseFailureText(const TestCaseResult& result) {
    for (const TestCheck& check : result.checks) {
        if (check.outcome != CheckOutcome::Failed)
            continue;
        QString why;
        if (check.name == QLatin1String("verify"))
            why = mismatchText(result.run);
        if (why.isEmpty())
            why = firstLine(check.message);
        return result.name + QStringLiteral(": ") + why;
    }
    return {};
}

Project lessonTestProject(const Lesson& lesson, const Project& ran) {
    Project project = ran;
    project.tests = lesson.project.tests;
    return project;
}

LessonVerdict judgeLessonTests(const LessonVerdict& ownSize, const TestReport& report) {
    LessonVerdict verdict = ownSize;
    if (report.status == RunStatus::Cancelled) {
        verdict.state = LessonVerdict::State::NotJudged;
        return verdict;
    }
    if (report.status != RunStatus::Ok || !report.error.isEmpty()) {
        verdict.state = LessonVerdict::State::Failed;
        verdict.failure = QStringLiteral("Verified at its own size, but the other sizes could "
                                         "not be checked (%1): %2")
                              .arg(runStatusName(report.status), firstLine(report.error));
        return verdict;
    }
    const qsizetype total = report.cases.size();
    const qsizetype failed = std::count_if(report.cases.cbegin(), report.cases.cend(),
                                           [](const TestCaseResult& c) { return c.failed(); });
    if (failed > 0) {
        const auto first = std::find_if(report.cases.cbegin(), report.cases.cend(),
                                        [](const TestCaseResult& c) { return c.failed(); });
        verdict.state = LessonVerdict::State::Failed;
        verdict.failure = QStringLiteral("Right at its own size, but not at every size: %1 (%2 "
                                         "of %3 sizes fail).")
                              .arg(caseFailureText(*first))
                              .arg(failed)
                              .arg(total);
        return verdict;
    }
    verdict.state = LessonVerdict::State::Complete;
    const QString sizes = total == 1
                              ? QStringLiteral("right at the 1 size of its tests")
                              : QStringLiteral("right at all %1 sizes of its tests").arg(total);
    verdict.summary =
        verdict.summary.isEmpty() ? sizes : verdict.summary + QStringLiteral(", ") + sizes;
    return verdict;
}

} // namespace kernelpad
