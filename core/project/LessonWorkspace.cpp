#include "core/project/LessonWorkspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace kernelpad {

namespace {

/// Copies the regular files and folders under `from` into `to` (created), each made writable
/// by its owner: installed lessons are read-only, and the copy is for editing.
bool copyTree(const QString& from, const QString& to, QString* error) {
    if (!QDir().mkpath(to)) {
        *error = QStringLiteral("cannot create the folder '%1'").arg(QDir::toNativeSeparators(to));
        return false;
    }
    const QFileInfoList entries =
        QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden);
    for (const QFileInfo& entry : entries) {
        const QString target = to + QLatin1Char('/') + entry.fileName();
        if (entry.isSymLink())
            continue; // a lesson folder is plain files; a link could lead anywhere
        if (entry.isDir()) {
            if (!copyTree(entry.absoluteFilePath(), target, error))
                return false;
            continue;
        }
        QFile source(entry.absoluteFilePath());
        if (!source.copy(target)) {
            *error = QStringLiteral("cannot copy '%1' to '%2': %3")
                         .arg(QDir::toNativeSeparators(entry.absoluteFilePath()),
                              QDir::toNativeSeparators(target), source.errorString());
            return false;
        }
        QFile copied(target);
        copied.setPermissions(copied.permissions() | QFileDevice::WriteOwner);
    }
    return true;
}

bool fail(QString* error, const QString& message) {
    if (error)
        *error = message;
    return false;
}

QString copyPathFor(const QString& lessonDirectory) {
    return lessonWorkspaceDirectory() + QLatin1Char('/') +
           QFileInfo(QDir::cleanPath(lessonDirectory)).fileName();
}

} // namespace

QString lessonWorkspaceDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/lessons");
}

bool isLessonCopy(const QString& lessonDirectory) {
    const QString workspace = QFileInfo(lessonWorkspaceDirectory()).absoluteFilePath();
    return QFileInfo(QDir::cleanPath(lessonDirectory)).absolutePath() == workspace;
}

std::optional<QString> lessonCopy(const QString& lessonDirectory, QString* error, bool* created) {
    if (created)
        *created = false;
    if (isLessonCopy(lessonDirectory))
        return QDir::cleanPath(lessonDirectory);
    const QString copy = copyPathFor(lessonDirectory);
    if (QFileInfo(copy).isDir())
        return copy;
    if (!QFileInfo(lessonDirectory).isDir()) {
        fail(error, QStringLiteral("the lesson folder '%1' does not exist")
                        .arg(QDir::toNativeSeparators(lessonDirectory)));
        return std::nullopt;
    }
    // Made beside and renamed: an interrupted copy is never taken for the student's work.
    const QString partial = copy + QStringLiteral(".partial");
    QDir(partial).removeRecursively();
    QString why;
    if (!copyTree(lessonDirectory, partial, &why)) {
        QDir(partial).removeRecursively();
        fail(error, why);
        return std::nullopt;
    }
    if (!QDir().rename(partial, copy)) {
        QDir(partial).removeRecursively();
        fail(error, QStringLiteral("cannot rename '%1' to '%2'")
                        .arg(QDir::toNativeSeparators(partial), QDir::toNativeSeparators(copy)));
        return std::nullopt;
    }
    if (created)
        *created = true;
    return copy;
}

bool restoreLessonCopy(const QString& lessonDirectory, QString* error) {
    if (isLessonCopy(lessonDirectory))
        return fail(error, QStringLiteral("'%1' is a student's copy; start over from the shipped "
                                          "lesson's folder")
                               .arg(QDir::toNativeSeparators(lessonDirectory)));
    const QString copy = copyPathFor(lessonDirectory);
    const QString old = copy + QStringLiteral(".old");
    QDir(old).removeRecursively();
    if (QFileInfo(copy).isDir() && !QDir().rename(copy, old))
        return fail(
            error,
            QStringLiteral("cannot move the copy '%1' aside").arg(QDir::toNativeSeparators(copy)));
    QString why;
    if (!lessonCopy(lessonDirectory, &why)) {
        // The student's work comes back rather than nothing.
        if (QFileInfo(old).isDir())
            QDir().rename(old, copy);
        return fail(error, why);
    }
    QDir(old).removeRecursively();
    return true;
}

} // namespace kernelpad
