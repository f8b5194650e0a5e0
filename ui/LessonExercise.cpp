#include "ui/LessonExercise.h"

#include "core/project/ProjectDiff.h"
#include "ui/LessonProgress.h"

namespace kernelpad {

namespace {
/// The student ran the starter itself, unchanged: its time is the baseline, no second run.
bool isStarter(const Lesson& lesson, const Project& ran) {
    return ran.source.trimmed() == lesson.project.source.trimmed() &&
           diffProjectSettings(lesson.project, ran).isEmpty();
}
} // namespace

LessonExercise::LessonExercise(LessonProgress* progress, QObject* parent)
    : QObject(parent)
    , m_progress(progress) {}

void LessonExercise::setLesson(std::optional<Lesson> lesson) {
    m_lesson = std::move(lesson);
    m_pending.reset();
    m_untested.reset();
    m_ran.reset();
}

QString LessonExercise::baselineKey(const QString& device) const {
    return LessonProgress::lessonId(*m_lesson) + QLatin1Char('\n') + device;
}

std::optional<double> LessonExercise::starterMedianMs(const QString& device) const {
    if (!m_lesson)
        return std::nullopt;
    const auto it = m_baselines.constFind(baselineKey(device));
    return it == m_baselines.cend() ? std::nullopt : std::optional<double>(*it);
}

void LessonExercise::runFinished(const RunResult& result, const Project& ran) {
    if (!m_lesson)
        return;
    // A run that ends while the starter is being timed replaces the one waiting for it; the
    // starter is timed once.
    const bool alreadyWaiting = m_pending.has_value();
    m_pending.reset();
    m_untested.reset();
    m_ran = ran;
    m_ranOn = result.device.ordinal;
    if (m_lesson->kind == LessonKind::Speed && isStarter(*m_lesson, ran))
        if (const std::optional<double> median = baselineMedianMs(result))
            m_baselines.insert(baselineKey(result.device.name), *median);
    const LessonVerdict verdict =
        judgeLessonRun(*m_lesson, result, starterMedianMs(result.device.name));
    if (verdict.state == LessonVerdict::State::NeedsBaseline) {
        m_pending = result;
        m_pending->outputs.clear(); // the buffers are not needed to judge it, and may be large
        if (!alreadyWaiting)
            emit baselineNeeded(m_lesson->project, result.device.ordinal);
        return;
    }
    judgedAtOwnSize(verdict);
}

void LessonExercise::baselineFinished(const RunResult& result) {
    if (!m_lesson)
        return;
    const std::optional<double> median = baselineMedianMs(result);
    if (median)
        m_baselines.insert(baselineKey(result.device.name), *median);
    if (!m_pending)
        return;
    const RunResult pending = *m_pending;
    m_pending.reset();
    if (!median) {
        LessonVerdict verdict;
        verdict.state = LessonVerdict::State::Failed;
        verdict.failure =
            result.status == RunStatus::Cancelled
                ? tr("Timing the starter kernel for comparison was cancelled; run again to "
                     "compare.")
                : tr("The starter kernel could not be timed on this device for comparison "
                     "(%1): %2")
                      .arg(runStatusName(result.status),
                           result.error.isEmpty() ? tr("it did not verify") : result.error);
        publish(verdict);
        return;
    }
    judgedAtOwnSize(judgeLessonRun(*m_lesson, pending, *median));
}

void LessonExercise::judgedAtOwnSize(const LessonVerdict& verdict) {
    if (verdict.state != LessonVerdict::State::Complete || m_lesson->project.tests.isEmpty() ||
        !m_ran) {
        publish(verdict);
        return;
    }
    m_untested = verdict;
    emit testsNeeded(lessonTestProject(*m_lesson, *m_ran), m_ranOn);
}

void LessonExercise::testsFinished(const TestReport& report) {
    if (!m_lesson || !m_untested || report.status == RunStatus::Cancelled)
        return;
    const LessonVerdict verdict = judgeLessonTests(*m_untested, report);
    m_untested.reset();
    publish(verdict);
}

void LessonExercise::publish(const LessonVerdict& verdict) {
    if (verdict.state == LessonVerdict::State::NotJudged)
        return;
    if (verdict.state == LessonVerdict::State::Complete)
        m_progress->markDone(LessonProgress::lessonId(*m_lesson), verdict.summary);
    emit judged(verdict);
}

} // namespace kernelpad
