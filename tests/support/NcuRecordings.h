#pragma once
// The Nsight Compute recordings of tests/data/ncu (see its README.md) as pages and reports, for
// tests/core/tst_ncupages.cpp and tst_profileadvice.cpp.

#include "core/profile/NcuPages.h"
#include "core/profile/ProfileReport.h"

#include <QFile>
#include <QString>

#include "TestPaths.h"

namespace kernelpad::test {

/// The text of tests/data/ncu/`name`; a missing recording stops the test.
inline QString ncuRecording(const QString& name) {
    QFile f(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(f.fileName()));
    return QString::fromUtf8(f.readAll());
}

/// The report of `kernel`'s recorded `set` ("basic", "full"), as "kernel.cu".
inline ProfileReport recordedProfile(const QString& kernel, const QString& set) {
    NcuPages pages;
    pages.details = ncuRecording(kernel + QLatin1Char('.') + set + QStringLiteral(".details.csv"));
    // The basic and full sets have only SAXPY's raw pages; the others' reports use SAXPY's
    // (the same device), which is enough for the per-line and details checks. The "hier"
    // recordings have each kernel's own.
    const QString own = kernel + QLatin1Char('.') + set + QStringLiteral(".raw.csv");
    const QString raw = QFile::exists(QStringLiteral(KERNELPAD_TEST_DATA_DIR "/ncu/") + own)
                            ? own
                            : QStringLiteral("saxpy.") + set + QStringLiteral(".raw.csv");
    pages.raw = ncuRecording(raw);
    if (set == QLatin1String("full"))
        pages.source = ncuRecording(kernel + QStringLiteral(".full.source-cuda-sass.csv"));
    QString error;
    const std::optional<ProfileReport> r =
        assembleProfileReport(pages, kernel + QStringLiteral(".cu"), set, &error);
    if (!r)
        qFatal("%s", qPrintable(error));
    return *r;
}

} // namespace kernelpad::test
