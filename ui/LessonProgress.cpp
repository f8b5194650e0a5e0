#include "ui/LessonProgress.h"

#include "core/project/Lesson.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace kernelpad {
namespace {

constexpr const char* kGroup = "lessons/done";

/// Every LessonProgress forwards this one object's signal, so a completion recorded in one
/// window updates the marks in all of them.
class ProgressNotifier : public QObject {
    Q_OBJECT
public:
    static ProgressNotifier& instance()
    {
        static ProgressNotifier notifier;
        return notifier;
    }
signals:
    void changed();
};

QString keyFor(const QString& id)
{
    // A lesson id is a folder name; '/' would open a sub-group in QSettings.
    QString safe = id;
    safe.replace(QLatin1Char('/'), QLatin1Char('_'));
    return QString::fromLatin1(kGroup) + QLatin1Char('/') + safe;
}

} // namespace

LessonProgress::LessonProgress(QObject* parent)
    : QObject(parent)
{
    connect(&ProgressNotifier::instance(), &ProgressNotifier::changed, this,
            &LessonProgress::changed);
}

QString LessonProgress::lessonId(const Lesson& lesson) { return lessonId(lesson.directory); }

QString LessonProgress::lessonId(const QString& lessonDirectory)
{
    return QFileInfo(QDir::cleanPath(lessonDirectory)).fileName();
}

bool LessonProgress::isDone(const QString& id) const { return completion(id).has_value(); }

std::optional<LessonCompletion> LessonProgress::completion(const QString& id) const
{
    if (id.isEmpty())
        return std::nullopt;
    const QSettings settings;
    const QString key = keyFor(id);
    if (!settings.contains(key + QStringLiteral("/when")))
        return std::nullopt;
    LessonCompletion done;
    done.when = QDateTime::fromString(settings.value(key + QStringLiteral("/when")).toString(),
                                      Qt::ISODate);
    if (!done.when.isValid())
        return std::nullopt; // a broken entry counts as not done rather than as done at no time
    done.summary = settings.value(key + QStringLiteral("/summary")).toString();
    return done;
}

QStringList LessonProgress::doneIds() const
{
    QSettings settings;
    settings.beginGroup(QString::fromLatin1(kGroup));
    QStringList ids;
    for (const QString& id : settings.childGroups()) {
        if (isDone(id))
            ids << id;
    }
    settings.endGroup();
    ids.sort();
    return ids;
}

void LessonProgress::markDone(const QString& id, const QString& summary)
{
    if (id.isEmpty())
        return;
    QSettings settings;
    const QString key = keyFor(id);
    settings.setValue(key + QStringLiteral("/when"),
                      QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    settings.setValue(key + QStringLiteral("/summary"), summary);
    settings.sync();
    emit ProgressNotifier::instance().changed();
}

void LessonProgress::reset(const QString& id)
{
    if (id.isEmpty())
        return;
    QSettings settings;
    settings.remove(keyFor(id));
    settings.sync();
    emit ProgressNotifier::instance().changed();
}

void LessonProgress::resetAll()
{
    QSettings settings;
    settings.remove(QString::fromLatin1(kGroup));
    settings.sync();
    emit ProgressNotifier::instance().changed();
}

} // namespace kernelpad

#include "LessonProgress.moc"
