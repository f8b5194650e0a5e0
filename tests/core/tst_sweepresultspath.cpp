// Where a sweep's results file lives ("an interrupted sweep resumes from its results file",
// from the window or kernelpad-cli alike): in the cache folder, in a folder (0700) keyed by the
// project's canonical path, never beside the project (a folder someone sent could plant a file
// or a link there); two paths to one project share it; a file an older KernelPad left beside the
// project is named as ignored, never read; the hash in its name changes with what changes a
// record's figures (source, compile options, arguments, the tunables and restrictions, the
// device) and not with what does not (name, description, strategy, objective, the best
// configuration applied); a file of another hash is listed as stale; the loader reads the file
// of the project as it is now, off the caller's thread, and delivers only the latest request's
// answer.

#include "core/project/Project.h"
#include "core/sweep/SweepJob.h"
#include "core/sweep/SweepResultsPath.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QJsonDocument>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sys/stat.h>

namespace tst_sweepresultspath {

using namespace kernelpad;

namespace {

Project transpose() {
    QString error;
    std::optional<Project> p =
        Project::load(QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad"), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

const QString kH100 = QStringLiteral("NVIDIA H100 80GB HBM3");

SweepRecord record(int bx, int by) {
    SweepRecord r;
    r.key = QStringLiteral("bx=%1,by=%2").arg(bx).arg(by);
    r.names = {QStringLiteral("bx"), QStringLiteral("by")};
    r.values = {double(bx), double(by)};
    r.status = QStringLiteral("ok");
    r.medianMs = 0.05 * bx / by;
    r.minMs = r.medianMs;
    r.device = kH100;
    return r;
}

void writeRecords(const QString& path, const QVector<SweepRecord>& records) {
    SweepResultsFile file;
    QString error;
    if (!file.open(path, &error))
        qFatal("%s", qPrintable(error));
    for (const SweepRecord& r : records)
        if (!file.append(r, &error))
            qFatal("%s", qPrintable(error));
}

} // namespace

class TestSweepResultsPath : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void hashFollowsWhatChangesRecords_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<bool>("changes");
        QTest::newRow("source") << "source" << true;
        QTest::newRow("compile options") << "options" << true;
        QTest::newRow("an argument") << "argument" << true;
        QTest::newRow("a tunable's values") << "tunable" << true;
        QTest::newRow("a restriction") << "restriction" << true;
        QTest::newRow("the device") << "device" << true;
        QTest::newRow("name and description") << "name" << false;
        QTest::newRow("strategy") << "strategy" << false;
        QTest::newRow("objective") << "objective" << false;
        QTest::newRow("block set by hand (a tunable overrides it)") << "block" << false;
        QTest::newRow("best configuration applied") << "apply" << false;
    }
    void hashFollowsWhatChangesRecords() {
        QFETCH(QString, what);
        QFETCH(bool, changes);
        const Project base = transpose();
        Project p = base;
        QString device = kH100;
        if (what == QLatin1String("source")) {
            p.source += QStringLiteral("\n// edited\n");
        } else if (what == QLatin1String("options")) {
            p.options.defines.append(QStringLiteral("FAST=1"));
        } else if (what == QLatin1String("argument")) {
            QVERIFY(!p.arguments.isEmpty());
            p.arguments[0].name += QStringLiteral("_renamed");
        } else if (what == QLatin1String("tunable")) {
            p.sweep.tunables[0].values.to = 512;
        } else if (what == QLatin1String("restriction")) {
            p.sweep.restrictions = {QStringLiteral("bx*by <= 512")};
        } else if (what == QLatin1String("device")) {
            device = QStringLiteral("NVIDIA H200");
        } else if (what == QLatin1String("name")) {
            p.name = QStringLiteral("another name");
            p.description = QStringLiteral("another description");
        } else if (what == QLatin1String("strategy")) {
            p.sweep.strategy.kind = SweepStrategySpec::Kind::Random;
            p.sweep.strategy.budget = 7;
        } else if (what == QLatin1String("objective")) {
            p.sweep.objective = SweepObjective::Bandwidth;
        } else if (what == QLatin1String("block")) {
            p.launch.block = {8, 4, 1};
        } else {
            QString error;
            const std::optional<Project> applied = projectWithRecord(p, record(32, 8), &error);
            QVERIFY2(applied, qPrintable(error));
            QVERIFY(!(applied->launch == p.launch));
            p = *applied;
        }
        const QString before = sweepResultsHash(base, kH100);
        const QString after = sweepResultsHash(p, device);
        QCOMPARE(before.size(), 8);
        QCOMPARE(after != before, changes);
    }

    void deviceKeyIgnoresOrderAndRepeats() {
        QCOMPARE(sweepDeviceKey({kH100, QStringLiteral("A"), kH100}),
                 QStringLiteral("A + ") + kH100);
        QCOMPARE(sweepDeviceKey({}), QString());
        QCOMPARE(sweepDeviceKey({QString()}), QString());
    }

    void inTheCacheFolderKeyedByTheProject() {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("mine.kpad"));
        const QString path = sweepResultsPath(transpose(), project, kH100);
        const QString folder = QFileInfo(path).absolutePath();
        QCOMPARE(folder, sweepResultsDirectory(project));
        QCOMPARE(QFileInfo(folder).absolutePath(), sweepResultsCacheDirectory());
        QVERIFY2(!path.startsWith(QFileInfo(dir.path()).canonicalFilePath()), qPrintable(path));
        QCOMPARE(QFileInfo(path).fileName(),
                 QStringLiteral("mine.sweep-%1.jsonl").arg(sweepResultsHash(transpose(), kH100)));
        // The same inputs give the same file: what lets the window and the CLI share it.
        QCOMPARE(sweepResultsPath(transpose(), project, kH100), path);
        // Another project of the same name elsewhere has a folder of its own.
        QTemporaryDir other;
        QVERIFY(sweepResultsDirectory(other.filePath(QStringLiteral("mine.kpad"))) != folder);
        // Only the user can enter the folders.
        for (const QString& made : {sweepResultsCacheDirectory(), folder}) {
            struct stat st {};
            QCOMPARE(::lstat(QFile::encodeName(made).constData(), &st), 0);
            QVERIFY(S_ISDIR(st.st_mode));
            QCOMPARE(st.st_mode & 0777, mode_t(0700));
        }
    }

    // Two paths to one project (its folder reached through a symbolic link, or a link to the
    // file) name one results file.
    void twoPathsToOneProjectShareTheFile() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("real")));
        const QString real = dir.filePath(QStringLiteral("real/t.kpad"));
        QFile f(real);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QVERIFY(QFile::link(dir.filePath(QStringLiteral("real")),
                            dir.filePath(QStringLiteral("linked"))));
        QVERIFY(QFile::link(real, dir.filePath(QStringLiteral("other-name.kpad"))));
        const QString path = sweepResultsPath(transpose(), real, kH100);
        QVERIFY2(path.startsWith(sweepResultsCacheDirectory() + QLatin1Char('/')),
                 qPrintable(path));
        QCOMPARE(
            sweepResultsPath(transpose(), dir.filePath(QStringLiteral("linked/t.kpad")), kH100),
            path);
        QCOMPARE(
            sweepResultsPath(transpose(), dir.filePath(QStringLiteral("other-name.kpad")), kH100),
            path);
    }

    void everyProjectInTheCacheFolder_data() {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("base");
        QTest::newRow("untitled") << QString() << "untitled";
        QTest::newRow("folder that does not exist") << "/nonexistent-folder/read-only.kpad"
                                                    << "read-only";
        QTest::newRow("the examples folder")
            << QStringLiteral(KERNELPAD_EXAMPLES_DIR "/transpose_sweep.kpad") << "transpose_sweep";
    }
    void everyProjectInTheCacheFolder() {
        QFETCH(QString, project);
        QFETCH(QString, base);
        const QString path = sweepResultsPath(transpose(), project, kH100);
        QCOMPARE(QFileInfo(path).absolutePath(), sweepResultsDirectory(project));
        QCOMPARE(QFileInfo(QFileInfo(path).absolutePath()).absolutePath(),
                 sweepResultsCacheDirectory());
        QVERIFY2(sweepResultsCacheDirectory().endsWith(QStringLiteral("/kernelpad/sweeps")),
                 qPrintable(sweepResultsCacheDirectory()));
        QVERIFY(QFileInfo(sweepResultsDirectory(project)).isDir());
        QVERIFY2(QFileInfo(path).fileName().startsWith(base + QStringLiteral(".sweep-")),
                 qPrintable(path));
    }

    // Where an older KernelPad kept results, beside the project: a file or a link there is
    // named as ignored and never opened.
    void aFileBesideTheProjectIsIgnored() {
        QTemporaryDir dir, outside;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        const QString hash = sweepResultsHash(transpose(), kH100);
        const QString old = dir.filePath(QStringLiteral("t.sweep-%1.jsonl").arg(hash));
        writeRecords(old, {record(32, 8)});
        const QByteArray before = [&] {
            QFile f(old);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        const QString profile = outside.filePath(QStringLiteral(".bash_aliases"));
        QFile target(profile);
        QVERIFY(target.open(QIODevice::WriteOnly));
        target.write("alias ll='ls -l'");
        target.close();
        const QString link = dir.filePath(QStringLiteral("t.sweep-00000000.jsonl"));
        QVERIFY(QFile::link(profile, link));

        const SweepResultsSnapshot snapshot = loadSweepResults(transpose(), project, kH100);
        QVERIFY(snapshot.path != old);
        QVERIFY(!snapshot.exists);
        QVERIFY(snapshot.records.isEmpty());
        QCOMPARE(snapshot.besideProject, (QStringList{link, old}));
        QFile f(old);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QVERIFY(target.open(QIODevice::ReadOnly));
        QCOMPARE(target.readAll(), QByteArray("alias ll='ls -l'"));
    }

    void otherVersionsAreStale() {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        Project older = transpose();
        older.source += QStringLiteral("\n// the version before\n");
        const QString stalePath = sweepResultsPath(older, project, kH100);
        writeRecords(stalePath, {record(32, 8)});
        // Another project's file in the same folder is not this one's.
        writeRecords(sweepResultsDirectory(project) + QStringLiteral("/other.sweep-12345678.jsonl"),
                     {record(1, 1)});
        const QString current = sweepResultsPath(transpose(), project, kH100);
        QVERIFY(current != stalePath);
        QCOMPARE(staleSweepResults(current), QStringList{stalePath});

        const SweepResultsSnapshot none = loadSweepResults(transpose(), project, kH100);
        QCOMPARE(none.path, current);
        QVERIFY(!none.exists);
        QVERIFY(none.records.isEmpty());
        QCOMPARE(none.stale, QStringList{stalePath});
        QCOMPARE(none.total, 66);
    }

    void loaderReadsTheCurrentFileOffThread() {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        const QString path = sweepResultsPath(transpose(), project, kH100);
        writeRecords(path, {record(32, 8), record(16, 16), record(8, 32)});
        SweepResultsLoader loader;
        QSignalSpy loaded(&loader, &SweepResultsLoader::loaded);
        // Two requests in a row: only the second (the project as it is now) is answered.
        Project edited = transpose();
        edited.source += QStringLiteral("\n// edited\n");
        loader.request(edited, project, kH100);
        loader.request(transpose(), project, kH100);
        QVERIFY(loaded.wait(10000));
        QTest::qWait(100);
        QCOMPARE(loaded.size(), 1);
        const auto snapshot = loaded.first().at(0).value<SweepResultsSnapshot>();
        QCOMPARE(snapshot.path, path);
        QVERIFY(snapshot.exists);
        QVERIFY(snapshot.error.isEmpty());
        QCOMPARE(snapshot.records.size(), 3);
        QCOMPARE(snapshot.records[1].key, QStringLiteral("bx=16,by=16"));
        QCOMPARE(snapshot.total, 66);
        QVERIFY(snapshot.modified.isValid());
    }

    void loaderReportsAFileThatDoesNotRead() {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("t.kpad"));
        const QString path = sweepResultsPath(transpose(), project, kH100);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray bytes = "{\"kernelpad\":\"sweep-results\",\"version\":1}\nnot json\n";
        f.write(bytes);
        f.close();
        const SweepResultsSnapshot snapshot = loadSweepResults(transpose(), project, kH100);
        QVERIFY(snapshot.exists);
        QVERIFY2(snapshot.error.contains(QStringLiteral("line 2: not a JSON object")),
                 qPrintable(snapshot.error));
        QVERIFY(snapshot.records.isEmpty());
        // Reading did not write: the file is as it was.
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), bytes);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepResultsPath)
} // namespace tst_sweepresultspath
#include "tst_sweepresultspath.moc"
