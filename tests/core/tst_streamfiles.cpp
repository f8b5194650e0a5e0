// The files a request sends to a runner elsewhere (collectStreamedFiles): only regular files
// whose real place is inside the project folder. A symbolic link inside the project once sent
// its target in full (data/x.npy -> ~/.ssh/id_rsa sent the key), and a header linked to
// /proc/self/pagemap was read until memory ran out. No runner is started here.

#include "core/launch/BufferInit.h"
#include "core/project/Project.h"
#include "core/runner/StreamFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <sys/stat.h>

namespace tst_streamfiles {

using namespace kernelpad;

namespace {

/// The saxpy example run from `projectDir`.
RunRequest saxpyIn(const QString& projectDir) {
    RunRequest r = test::saxpyRequest();
    r.projectDir = projectDir;
    return r;
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// How the planted file is reached from the project.
enum class Use { NpyInit, QuotedInclude };

} // namespace

class TestStreamFiles : public QObject {
    Q_OBJECT
private slots:
    void refused_data();
    void refused();
    void linkInsideTheProjectIsSentUnderItsName();
    void openRefusesAFileSwappedAfterListing();
    void outputBoundsFollowTheRequest();
};

void TestStreamFiles::refused_data() {
    QTest::addColumn<int>("use");
    QTest::addColumn<QString>("plant"); // what data/x.npy (or inc/x.h) is
    QTest::addColumn<QString>("mustSay");
    const int npy = int(Use::NpyInit), header = int(Use::QuotedInclude);
    QTest::newRow("npy linked to a secret outside") << npy << "link:secret"
                                                    << "arguments[1].init.path: '";
    QTest::newRow("npy linked to a FIFO outside") << npy << "link:fifo"
                                                  << "outside the project";
    QTest::newRow("npy linked to /proc/self/pagemap") << npy << "link:/proc/self/pagemap"
                                                      << "outside the project folder";
    QTest::newRow("npy a FIFO inside") << npy << "fifo"
                                       << "is not a regular file";
    QTest::newRow("header linked to a secret outside") << header << "link:secret"
                                                       << "source: #include \"x.h\": '";
    QTest::newRow("header linked to /proc/self/pagemap") << header << "link:/proc/self/pagemap"
                                                         << "outside the project folder";
    QTest::newRow("header linked to a FIFO outside") << header << "link:fifo"
                                                     << "outside the project folder";
    QTest::newRow("header a FIFO inside") << header << "fifo"
                                          << "not a regular file";
}

void TestStreamFiles::refused() {
    QFETCH(int, use);
    QFETCH(QString, plant);
    QFETCH(QString, mustSay);
    QTemporaryDir project, outside;
    const QString secret = outside.filePath(QStringLiteral("id_rsa"));
    QVERIFY(writeFile(secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n"));
    const QString fifo = outside.filePath(QStringLiteral("fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QString planted = project.filePath(use == int(Use::NpyInit) ? QStringLiteral("data/x.npy")
                                                                      : QStringLiteral("x.h"));
    QVERIFY(QDir().mkpath(QFileInfo(planted).absolutePath()));
    if (plant == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(QFile::encodeName(planted).constData(), 0600), 0);
    } else {
        QString target = plant.mid(5);
        if (target == QLatin1String("secret"))
            target = secret;
        else if (target == QLatin1String("fifo"))
            target = fifo;
        QVERIFY(QFile::link(target, planted));
    }
    RunRequest r = saxpyIn(project.path());
    if (use == int(Use::NpyInit)) {
        r.project.arguments[1].buffer.init.kind = InitSpec::Kind::File;
        r.project.arguments[1].buffer.init.path = QStringLiteral("data/x.npy");
    } else {
        r.project.source.prepend(QStringLiteral("#include \"x.h\"\n"));
    }
    QString error;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&r, &error);
    QVERIFY2(!files, qPrintable(files && !files->isEmpty() ? files->first().path : QString()));
    QVERIFY2(error.contains(mustSay), qPrintable(error));
    // The message names the file the project names.
    QVERIFY2(error.contains(QLatin1String("x.npy")) || error.contains(QLatin1String("x.h")),
             qPrintable(error));
}

void TestStreamFiles::linkInsideTheProjectIsSentUnderItsName() {
    QTemporaryDir project;
    QVERIFY(writeFile(project.filePath(QStringLiteral("inc/real.h")), "#define SCALE 2.0f\n"));
    QVERIFY(QFile::link(project.filePath(QStringLiteral("inc/real.h")),
                        project.filePath(QStringLiteral("alias.h"))));
    RunRequest r = saxpyIn(project.path());
    r.project.source.prepend(QStringLiteral("#include \"alias.h\"\n"));
    QString error;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&r, &error);
    QVERIFY2(files, qPrintable(error));
    QCOMPARE(files->size(), 1);
    QCOMPARE(files->first().name, QStringLiteral("alias.h"));
    QCOMPARE(files->first().bytes, qint64(19));
    QCOMPARE(files->first().path,
             QFileInfo(project.filePath(QStringLiteral("inc/real.h"))).canonicalFilePath());
    QFile opened;
    QVERIFY2(openStreamedFile(files->first(), &opened, &error), qPrintable(error));
    QCOMPARE(opened.readAll(), QByteArray("#define SCALE 2.0f\n"));
}

void TestStreamFiles::openRefusesAFileSwappedAfterListing() {
    QTemporaryDir project, outside;
    QVERIFY(writeFile(project.filePath(QStringLiteral("x.npy")), QByteArray(128, 'n')));
    QVERIFY(writeFile(outside.filePath(QStringLiteral("secret")), QByteArray(128, 's')));
    RunRequest r = saxpyIn(project.path());
    r.project.arguments[1].buffer.init.kind = InitSpec::Kind::File;
    r.project.arguments[1].buffer.init.path = QStringLiteral("x.npy");
    QString error;
    const std::optional<QVector<StreamedFile>> files = collectStreamedFiles(&r, &error);
    QVERIFY2(files && files->size() == 1, qPrintable(error));
    // Between the listing and the sending, the file becomes a link out, then a FIFO.
    const QString path = files->first().path;
    QVERIFY(QFile::remove(path));
    QVERIFY(QFile::link(outside.filePath(QStringLiteral("secret")), path));
    QFile opened;
    QVERIFY(!openStreamedFile(files->first(), &opened, &error));
    QVERIFY(QFile::remove(path));
    QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    QVERIFY(!openStreamedFile(files->first(), &opened, &error));
    QVERIFY2(error.contains(QLatin1String("changed while it was sent")), qPrintable(error));
}

void TestStreamFiles::outputBoundsFollowTheRequest() {
    RunRequest r = saxpyIn(QStringLiteral(KERNELPAD_EXAMPLES_DIR));
    for (ArgumentSpec& a : r.project.arguments)
        if (a.name == QLatin1String("n"))
            a.value = QStringLiteral("4");
    ArgumentSpec surface;
    surface.name = QStringLiteral("img");
    surface.kind = ArgumentSpec::Kind::Surface;
    surface.texture.dims = {8, 8, 0};
    surface.texture.channels = 4;
    surface.texture.channelType = ScalarType::Float32;
    r.project.arguments.append(surface);
    GlobalSpec global;
    global.name = QStringLiteral("table");
    global.value.count = QStringLiteral("n*2");
    global.value.elementType = ValueType::of(ScalarType::Float64);
    r.project.globals.append(global);
    GlobalSpec unknown;
    unknown.name = QStringLiteral("later");
    unknown.value.count = QStringLiteral("m"); // no such scalar: the protocol's own bound
    r.project.globals.append(unknown);
    const QHash<QString, qint64> bounds = streamedOutputBounds(r);
    QCOMPARE(bounds.value(QStringLiteral("out")), qint64(16));
    QCOMPARE(bounds.value(QStringLiteral("x")), qint64(16));
    QCOMPARE(bounds.value(QStringLiteral("img")), qint64(8 * 8 * 4 * 4));
    QCOMPARE(bounds.value(QStringLiteral("table")), qint64(64));
    QCOMPARE(bounds.value(QStringLiteral("later")), kMaxBufferBytes);
    QVERIFY(!bounds.contains(QStringLiteral("a"))); // a scalar is no output
    QCOMPARE(bounds.size(), 6);
}

KERNELPAD_TEST_GUILESS_MAIN(TestStreamFiles)
} // namespace tst_streamfiles
#include "tst_streamfiles.moc"
