// A sweep results file cannot be turned against the user: a project folder someone sent, or a
// file named with --results, that plants a symbolic link (to a shell profile, to
// /proc/self/pagemap), a hard link or a FIFO gets a clear refusal and the target untouched,
// never a hang; only a file that KernelPad wrote (its header line first, every line read) is
// read or appended, a refused one is never modified and nothing is ever truncated; a last line
// cut short by a kill is skipped when read and marked when the next record is appended, so
// the file keeps reading.

#include "../support/TestMain.h"
#include "core/sweep/SweepResults.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <functional>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tst_sweepresultsfile {

using namespace kernelpad;

namespace {

/// What a shell profile looks like; without a final newline, what the old code emptied.
const QByteArray kProfile = QByteArrayLiteral("alias ll='ls -l'\nexport EDITOR=vi");

const QByteArray kHeader = QByteArrayLiteral("{\"kernelpad\":\"sweep-results\",\"version\":1}\n");

QByteArray recordLine(int bx) {
    return QStringLiteral("{\"key\":\"bx=%1\",\"names\":[\"bx\"],\"parameters\":{\"bx\":%1},"
                          "\"status\":\"ok\",\"medianMs\":%2}\n")
        .arg(bx)
        .arg(1.0 / bx)
        .toUtf8();
}

SweepRecord record(int bx) {
    SweepRecord r;
    r.key = QStringLiteral("bx=%1").arg(bx);
    r.names = {QStringLiteral("bx")};
    r.values = {double(bx)};
    r.status = QStringLiteral("ok");
    r.medianMs = 1.0 / bx;
    return r;
}

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool writePlain(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// Runs `step` on a thread of its own and reports whether it returned within `limitMs`. When
/// it did not (blocked opening the FIFO `fifo`), the FIFO is opened from this side to let it
/// go, so that the test fails instead of hanging.
bool returnsWithin(int limitMs, const std::function<void()>& step, const QString& fifo) {
    std::atomic<bool> done{false};
    std::thread worker([&] {
        step();
        done = true;
    });
    QElapsedTimer timer;
    timer.start();
    while (!done && timer.elapsed() < limitMs)
        QThread::msleep(10);
    const bool inTime = done;
    while (!done) {
        // A reader blocked in open() is released by a writer; a writer by a reader.
        for (int flags : {O_WRONLY | O_NONBLOCK, O_RDONLY | O_NONBLOCK}) {
            const int fd = ::open(QFile::encodeName(fifo).constData(), flags);
            if (fd >= 0)
                ::close(fd);
        }
        QThread::msleep(10);
    }
    worker.join();
    return inTime;
}

} // namespace

class TestSweepResultsFile : public QObject {
    Q_OBJECT
private slots:
    // `proj.sweep-HASH.jsonl -> ../../.bash_aliases`: the target was emptied (no final
    // newline) or appended to with records that quote a kernel name the project chose.
    void aSymbolicLinkIsNeverFollowed_data() {
        QTest::addColumn<QByteArray>("target");
        // One line without its newline: the old code emptied it, then wrote a record in it.
        QTest::newRow("one line without a final newline") << QByteArrayLiteral("alias ll='ls -l'");
        QTest::newRow("profile without a final newline") << kProfile;
        QTest::newRow("profile with a final newline") << kProfile + '\n';
        QTest::newRow("a results file of KernelPad's") << kHeader + recordLine(32);
    }
    void aSymbolicLinkIsNeverFollowed() {
        QFETCH(QByteArray, target);
        QTemporaryDir outside, dir;
        const QString profile = outside.filePath(QStringLiteral(".bash_aliases"));
        QVERIFY(writePlain(profile, target));
        const QString link = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QVERIFY(QFile::link(profile, link));

        QString error;
        QVERIFY(!readSweepResults(link, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")) && error.contains(link),
                 qPrintable(error));
        SweepResultsFile file;
        error.clear();
        QVERIFY(!file.open(link, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")) && error.contains(link),
                 qPrintable(error));
        QVERIFY(!file.append(record(1), &error)); // never opened: nothing to write to
        QCOMPARE(contents(profile), target);
        QVERIFY(QFileInfo(link).isSymLink());
    }

    // A dangling link: creating the file through it would write wherever it points.
    void aDanglingLinkIsNotCreatedThrough() {
        QTemporaryDir outside, dir;
        const QString target = outside.filePath(QStringLiteral("planted"));
        const QString link = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QVERIFY(QFile::link(target, link));
        SweepResultsFile file;
        QString error;
        QVERIFY(!file.open(link, &error));
        QVERIFY2(error.contains(QStringLiteral("symbolic link")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(target));
    }

    void aHardLinkIsRefused() {
        QTemporaryDir dir;
        const QString profile = dir.filePath(QStringLiteral(".bash_aliases"));
        QVERIFY(writePlain(profile, kProfile));
        const QString link = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QCOMPARE(
            ::link(QFile::encodeName(profile).constData(), QFile::encodeName(link).constData()), 0);
        SweepResultsFile file;
        QString error;
        QVERIFY(!file.open(link, &error));
        QVERIFY2(error.contains(QStringLiteral("2 hard links")) && error.contains(link),
                 qPrintable(error));
        QCOMPARE(contents(profile), kProfile);
    }

    void aFileOfAnotherUserIsRefused() {
        if (::geteuid() != 0)
            QSKIP("only root can give a file to another user here");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        const QByteArray before = kHeader + recordLine(32);
        QVERIFY(writePlain(path, before));
        const uid_t nobody = 65534;
        QCOMPARE(::chown(QFile::encodeName(path).constData(), nobody, nobody), 0);
        SweepResultsFile file;
        QString error;
        QVERIFY(!file.open(path, &error));
        QVERIFY2(error.contains(QStringLiteral("owned by another user")), qPrintable(error));
        QCOMPARE(contents(path), before);
    }

    // A FIFO with no writer hung the reader (the window's loader, Run Sweep, the CLI).
    void aFifoIsRefusedWithoutHanging() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QString readError, openError;
        bool read = true, opened = true;
        QVERIFY(returnsWithin(
            2000, [&] { read = bool(readSweepResults(fifo, &readError)); }, fifo));
        QVERIFY(!read);
        QVERIFY2(readError.contains(QStringLiteral("not a regular file")), qPrintable(readError));
        SweepResultsFile file;
        QVERIFY(returnsWithin(
            2000, [&] { opened = file.open(fifo, &openError); }, fifo));
        QVERIFY(!opened);
        QVERIFY2(openError.contains(QStringLiteral("not a regular file")), qPrintable(openError));
    }

    // A link to /proc/self/pagemap (terabytes that report a size of 0) ran the window out of
    // memory at project open; named directly, it is refused as well.
    void pagemapIsRefusedQuickly_data() {
        QTest::addColumn<bool>("throughLink");
        QTest::newRow("a link to it") << true;
        QTest::newRow("named directly") << false;
    }
    void pagemapIsRefusedQuickly() {
        QFETCH(bool, throughLink);
        if (!QFileInfo::exists(QStringLiteral("/proc/self/pagemap")))
            QSKIP("no /proc/self/pagemap here");
        QTemporaryDir dir;
        QString path = QStringLiteral("/proc/self/pagemap");
        if (throughLink) {
            const QString link = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
            QVERIFY(QFile::link(path, link));
            path = link;
        }
        QElapsedTimer timer;
        timer.start();
        QString error;
        QVERIFY(!readSweepResults(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
        SweepResultsFile file;
        QVERIFY(!file.open(path, &error));
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    }

    void aFileOverTheLimitIsRefusedUnread() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.write(kHeader) == kHeader.size());
        QVERIFY(f.resize(kSweepResultsMaxBytes + 1)); // sparse: nothing is written
        f.close();
        QString error;
        QVERIFY(!readSweepResults(path, &error));
        QVERIFY2(error.contains(QStringLiteral("more than the %1").arg(kSweepResultsMaxBytes)),
                 qPrintable(error));
        SweepResultsFile file;
        QVERIFY(!file.open(path, &error));
        QCOMPARE(QFileInfo(path).size(), kSweepResultsMaxBytes + 1);
    }

    // Only a file KernelPad wrote is read or appended: one without the header (a results file
    // of an older KernelPad included) is named with its line and left as it is.
    void aFileWithoutTheHeaderIsRefused_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("records without a header")
            << recordLine(32) + recordLine(16) << "line 1: not a KernelPad sweep results file";
        QTest::newRow("a profile") << kProfile + '\n' << "line 1: not a KernelPad";
        QTest::newRow("empty") << QByteArray() << "line 1: not a KernelPad";
        QTest::newRow("another program's header")
            << QByteArrayLiteral("{\"kernelpad\":\"other\",\"version\":1}\n") + recordLine(32)
            << "line 1: not a KernelPad";
        QTest::newRow("a newer version")
            << QByteArrayLiteral("{\"kernelpad\":\"sweep-results\",\"version\":2}\n") +
                   recordLine(32)
            << "line 1: written by a newer KernelPad";
    }
    void aFileWithoutTheHeaderIsRefused() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QVERIFY(writePlain(path, bytes));
        QString error;
        QVERIFY(!readSweepResults(path, &error));
        QVERIFY2(error.contains(expected) && error.contains(path), qPrintable(error));
        SweepResultsFile file;
        error.clear();
        QVERIFY(!file.open(path, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QCOMPARE(contents(path), bytes);
    }

    void aLineThatDoesNotParseIsNamed_data() {
        QTest::addColumn<QByteArray>("bad");
        QTest::addColumn<QString>("expected");
        QTest::newRow("shell text")
            << QByteArrayLiteral("saxpy$(touch${IFS}/tmp/x)\n") << "line 3: not a JSON object";
        QTest::newRow("an array") << QByteArrayLiteral("[1]\n") << "line 3: not a JSON object";
        QTest::newRow("a record without its parameter")
            << QByteArrayLiteral("{\"key\":\"bx=2\",\"names\":[\"bx\"],\"parameters\":{},"
                                 "\"status\":\"ok\"}\n")
            << "line 3: parameters.bx: missing";
    }
    void aLineThatDoesNotParseIsNamed() {
        QFETCH(QByteArray, bad);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        const QByteArray bytes = kHeader + recordLine(32) + bad + recordLine(16);
        QVERIFY(writePlain(path, bytes));
        QString error;
        QVERIFY(!readSweepResults(path, &error));
        QVERIFY2(error.contains(expected) && error.contains(path), qPrintable(error));
        SweepResultsFile file;
        QVERIFY(!file.open(path, &error));
        QCOMPARE(contents(path), bytes);
    }

    // A kill while a line was written leaves it without its newline: skipped when read, kept
    // in the file (never truncated), and the next append starts a fresh line after a mark that
    // the line above was cut short, so the file reads again with every record.
    void aLastLineCutShortIsSkippedAndKept() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        const QByteArray cut = QByteArrayLiteral("{\"key\":\"bx=8\",\"names\":[\"b");
        const QByteArray before = kHeader + recordLine(32) + cut;
        QVERIFY(writePlain(path, before));
        QString error;
        std::optional<QVector<SweepRecord>> read = readSweepResults(path, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), 1);

        SweepResultsFile file;
        QVERIFY2(file.open(path, &error), qPrintable(error));
        QCOMPARE(file.existing().size(), 1);
        QCOMPARE(contents(path), before); // opening writes nothing
        QVERIFY2(file.append(record(8), &error), qPrintable(error));
        QVERIFY2(file.append(record(4), &error), qPrintable(error));
        const QByteArray after = contents(path);
        QVERIFY(after.startsWith(before));
        QVERIFY(after.mid(before.size()).startsWith('\n'));
        read = readSweepResults(path, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), 3);
        QCOMPARE((*read)[1].key, QStringLiteral("bx=8"));
        QCOMPARE((*read)[2].key, QStringLiteral("bx=4"));

        // Reopened, it resumes with all three, and the mark is written once.
        SweepResultsFile again;
        QVERIFY2(again.open(path, &error), qPrintable(error));
        QCOMPARE(again.existing().size(), 3);
        QVERIFY(again.append(record(2), &error));
        QCOMPARE(contents(path).count("cut-short"), 1);
    }

    // A file cut short inside a whole record (a kill before its newline) is read without it,
    // and the record is not counted twice once appended again.
    void aWholeRecordWithoutItsNewlineIsNotCountedTwice() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        QByteArray last = recordLine(8);
        last.chop(1);
        QVERIFY(writePlain(path, kHeader + recordLine(32) + last));
        SweepResultsFile file;
        QString error;
        QVERIFY2(file.open(path, &error), qPrintable(error));
        QCOMPARE(file.existing().size(), 1);
        QVERIFY(file.append(record(8), &error));
        const std::optional<QVector<SweepRecord>> read = readSweepResults(path, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), 2);
    }

    void aNewFileStartsWithTheHeaderAndIsPrivate() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("proj.sweep-12345678.jsonl"));
        SweepResultsFile file;
        QString error;
        QVERIFY2(file.open(path, &error), qPrintable(error));
        QVERIFY(file.existing().isEmpty());
        QVERIFY(file.append(record(32), &error));
        const QByteArray written = contents(path);
        QVERIFY2(written.startsWith(kHeader), written.constData());
        QCOMPARE(written.count('\n'), 2);
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        const std::optional<QVector<SweepRecord>> read = readSweepResults(path, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), 1);
        QCOMPARE(read->first().medianMs, 1.0 / 32);
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSweepResultsFile)
} // namespace tst_sweepresultsfile
#include "tst_sweepresultsfile.moc"
