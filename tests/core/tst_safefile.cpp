// Writes that fail say so and leave the old file whole (a full disk once reported success
// and emptied the project); reads that open only regular files of bounded size.

#include "core/io/SafeFile.h"
#include "core/launch/Npy.h"
#include "core/project/Project.h"

#include "../support/SmallFilesystem.h"
#include "../support/TestMain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstring>
#include <functional>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tst_safefile {

using namespace kernelpad;
using kernelpad::test::SmallFilesystem;

namespace {

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool writePlain(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// Runs `write` in a child process whose file-size limit is `limitBytes`, so that write()
/// fails with EFBIG as it would on a full disk; returns the child's verdict and message.
std::pair<bool, QString> writeUnderSizeLimit(qint64 limitBytes,
                                             const std::function<bool(QString*)>& write) {
    int fds[2];
    if (::pipe(fds) != 0)
        return {true, QStringLiteral("pipe failed")};
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        std::signal(SIGXFSZ, SIG_IGN); // write() then fails with EFBIG instead of killing us
        const rlimit limit{rlim_t(limitBytes), rlim_t(limitBytes)};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        QString error;
        const bool ok = write(&error);
        const QByteArray message = error.toUtf8();
        (void)!::write(fds[1], message.constData(), size_t(message.size()));
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    QByteArray message;
    char buffer[512];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
        message.append(buffer, n);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    return {WIFEXITED(status) && WEXITSTATUS(status) == 0, QString::fromUtf8(message)};
}

Project bigProject(int sourceBytes) {
    Project p;
    p.name = QStringLiteral("big");
    p.sourceName = QStringLiteral("big.cu");
    p.kernel = QStringLiteral("k");
    p.source = QStringLiteral("extern \"C\" __global__ void k() {}\n// ") +
               QString(sourceBytes, QLatin1Char('x'));
    return p;
}

} // namespace

class TestSafeFile : public QObject {
    Q_OBJECT

private slots:
    void atomicWriteReplacesAndKeepsPermissions() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.kpad"));
        QVERIFY(writePlain(path, "old"));
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
        const QFile::Permissions before = QFile::permissions(path);
        QString error;
        QVERIFY2(writeFileAtomically(path, "new contents", &error), qPrintable(error));
        QCOMPARE(contents(path), QByteArray("new contents"));
        QCOMPARE(QFile::permissions(path), before);
        QVERIFY(!(before & QFile::ReadOther)); // a private file stays private
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void failedWriteKeepsTheOldFile_data() {
        QTest::addColumn<QString>("writer");
        QTest::newRow("bytes") << "bytes";
        QTest::newRow("project save") << "project";
        QTest::newRow("npy") << "npy";
    }
    void failedWriteKeepsTheOldFile() {
        QFETCH(QString, writer);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("target"));
        const QByteArray old(2000, 'o');
        QVERIFY(writePlain(path, old));
        // 8 KiB allowed: the old file fits, the new one does not.
        const auto [ok, message] = writeUnderSizeLimit(8192, [&](QString* error) {
            if (writer == QLatin1String("project"))
                return bigProject(64 * 1024).save(path, error);
            if (writer == QLatin1String("npy")) {
                NpyArray a;
                a.type = ValueType::of(ScalarType::Float32);
                a.shape = {100000};
                a.data = QByteArray(400000, '\0');
                return writeNpy(path, a, error);
            }
            return writeFileAtomically(path, QByteArray(64 * 1024, 'n'), error);
        });
        QVERIFY2(!ok, "a write past the file-size limit reported success");
        QVERIFY2(message.contains(QLatin1String("File too large")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("target")), qPrintable(message));
        QCOMPARE(contents(path), old);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("target")}); // no temporary file left behind
    }

    void fullDiskSaveSaysSoAndKeepsTheProject() {
        SmallFilesystem fs;
        if (!fs.ok())
            QSKIP(qPrintable(fs.why()));
        const QString path = fs.path(QStringLiteral("p.kpad"));
        const Project small = bigProject(100);
        QString error;
        QVERIFY2(small.save(path, &error), qPrintable(error));
        const QByteArray saved = contents(path);
        fs.fill();
        QVERIFY(!bigProject(32 * 1024).save(path, &error));
        QVERIFY2(error.contains(QLatin1String("No space left on device")), qPrintable(error));
        QCOMPARE(contents(path), saved);
        QString loadError;
        QVERIFY2(Project::load(path, &loadError), qPrintable(loadError));
        QCOMPARE(QDir(fs.path(QString())).entryList(QDir::Files | QDir::Hidden).size(), 2);
    }

    void onlyRegularFilesAreRead_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("failure");
        QTest::newRow("fifo") << "fifo" << int(ReadFailure::NotRegular);
        QTest::newRow("device") << "/dev/zero" << int(ReadFailure::NotRegular);
        QTest::newRow("folder") << "folder" << int(ReadFailure::NotRegular);
        QTest::newRow("symlink not followed") << "symlink" << int(ReadFailure::NotRegular);
        QTest::newRow("too large") << "large" << int(ReadFailure::TooLarge);
        QTest::newRow("missing") << "missing" << int(ReadFailure::Missing);
    }
    void onlyRegularFilesAreRead() {
        QFETCH(QString, kind);
        QFETCH(int, failure);
        QTemporaryDir dir;
        QString path = dir.filePath(QStringLiteral("x"));
        ReadLimits limits{1024, true};
        if (kind == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("folder")) {
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("x")));
        } else if (kind == QLatin1String("symlink")) {
            QVERIFY(writePlain(dir.filePath(QStringLiteral("real")), "data"));
            QVERIFY(QFile::link(dir.filePath(QStringLiteral("real")), path));
            limits.followSymlinks = false;
        } else if (kind == QLatin1String("large")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.resize(qint64(2) << 30)); // sparse
        } else if (kind != QLatin1String("missing")) {
            path = kind;
        }
        QString error;
        ReadFailure why = ReadFailure::None;
        QVERIFY(!readRegularFile(path, limits, &error, &why));
        QCOMPARE(int(why), failure);
        QVERIFY(!error.isEmpty());
    }

    void aRegularFileIsReadWhole() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("x"));
        QVERIFY(writePlain(path, "0123456789"));
        QString error;
        const std::optional<QByteArray> bytes = readRegularFile(path, {10, false}, &error);
        QVERIFY2(bytes, qPrintable(error));
        QCOMPARE(*bytes, QByteArray("0123456789"));
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSafeFile)
} // namespace tst_safefile
#include "tst_safefile.moc"
