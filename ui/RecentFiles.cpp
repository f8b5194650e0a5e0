#include "ui/RecentFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace kernelpad {

namespace {
const char kSettingsKey[] = "recentFiles";
} // namespace

RecentFiles::RecentFiles(QObject* parent)
    : QObject(parent) {}

QStringList RecentFiles::stored() const {
    return QSettings().value(QLatin1String(kSettingsKey)).toStringList();
}

void RecentFiles::store(const QStringList& paths) {
    QSettings().setValue(QLatin1String(kSettingsKey), paths);
    emit changed();
}

QStringList RecentFiles::files() const {
    QStringList existing;
    for (const QString& p : stored()) {
        if (QFileInfo::exists(p))
            existing.append(p);
    }
    return existing;
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList paths = stored();
    paths.removeAll(absolute);
    paths.prepend(absolute);
    while (paths.size() > kMaxEntries)
        paths.removeLast();
    store(paths);
}

void RecentFiles::remove(const QString& path) {
    QStringList paths = stored();
    if (paths.removeAll(QFileInfo(path).absoluteFilePath()) > 0)
        store(paths);
}

void RecentFiles::clear() {
    store({});
}

void RecentFiles::fillMenu(QMenu* menu) {
    menu->clear();
    const QStringList paths = files();
    for (int i = 0; i < paths.size(); ++i) {
        const QString& path = paths.at(i);
        // "&1 saxpy.kpad  (~/kernels)": the accelerator digit for the first nine.
        const QString prefix = i < 9 ? QStringLiteral("&%1 ").arg(i + 1) : QString();
        QString label =
            QStringLiteral("%1   (%2)")
                .arg(QFileInfo(path).fileName(), QDir::toNativeSeparators(QFileInfo(path).path()));
        label.replace(QLatin1Char('&'), QStringLiteral("&&")); // a literal '&' in a menu
        QAction* action = menu->addAction(prefix + label);
        action->setData(path);
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (paths.isEmpty()) {
        QAction* none = menu->addAction(tr("No recent projects"));
        none->setEnabled(false);
    } else {
        menu->addSeparator();
        connect(menu->addAction(tr("Clear Recent Projects")), &QAction::triggered, this,
                &RecentFiles::clear);
    }
}

} // namespace kernelpad
