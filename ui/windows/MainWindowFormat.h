#pragma once
// Small formatting and comparison helpers shared by the MainWindow*.cpp files.

#include "core/launch/ArgumentSpec.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QVector>

namespace kernelpad::mainwindow {

/// "470.3 µs", "12.5 ms", "1.20 s".
inline QString formatMs(double ms) {
    if (ms <= 0)
        return QStringLiteral("0 ms");
    if (ms < 1.0)
        return QStringLiteral("%1 µs").arg(ms * 1e3, 0, 'f', ms < 0.01 ? 2 : 1);
    if (ms < 1000.0)
        return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
    return QStringLiteral("%1 s").arg(ms / 1e3, 0, 'f', 2);
}

inline bool sameJson(const QJsonObject& a, const QJsonObject& b) {
    return QJsonDocument(a).toJson(QJsonDocument::Compact) ==
           QJsonDocument(b).toJson(QJsonDocument::Compact);
}

inline bool sameArguments(const QVector<ArgumentSpec>& a, const QVector<ArgumentSpec>& b) {
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        if (!sameJson(a.at(i).toJson(), b.at(i).toJson()))
            return false;
    }
    return true;
}

} // namespace kernelpad::mainwindow
