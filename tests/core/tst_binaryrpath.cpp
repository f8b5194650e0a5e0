// No program of the build searches the current directory for libraries: every DT_RPATH and
// DT_RUNPATH entry of every program built (kernelpad-cli, kernelpad, the tests, the benchmarks)
// is an absolute folder, and kernelpad-cli started from a folder holding a planted libcuda.so.1,
// libnvidia-ml.so.1, libnvrtc.so.13 and libQt6Core.so.6 loads none of them. CMake's install-rewrite
// padding once gave both programs 41 empty DT_RPATH entries, each meaning the current directory.

#include "../support/ElfDynamic.h"
#include "../support/TestMain.h"
#include "TestPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLibrary>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace tst_binaryrpath {

using namespace kernelpad::test;

namespace {

/// The build tree's root: kernelpad-cli is in its app/ folder.
QString buildRoot() {
    return QDir::cleanPath(QFileInfo(QStringLiteral(KERNELPAD_CLI_PATH)).absolutePath() +
                           QStringLiteral("/.."));
}

/// Every ELF program in the build tree's app/, tests/, bench/ and fuzz/ folders (not their
/// CMakeFiles/ object folders).
QStringList builtPrograms() {
    QStringList programs;
    for (const char* folder : {"app", "tests", "bench", "fuzz"}) {
        QDirIterator it(buildRoot() + QLatin1Char('/') + QLatin1String(folder),
                        QDir::Files | QDir::Executable, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (!path.contains(QLatin1String("/CMakeFiles/")) && isElfFile(path))
                programs << path;
        }
    }
    programs.sort();
    return programs;
}

/// Builds each of `libraries` in `dir`, its constructor writing `marker`; empty on success,
/// else why not (no compiler here).
QString plantLibraries(const QString& dir, const QStringList& libraries, const QString& marker) {
    const QString compiler = QStandardPaths::findExecutable(QStringLiteral("c++"));
    if (compiler.isEmpty())
        return QStringLiteral("no c++ on PATH to build the planted libraries");
    const QString source = dir + QStringLiteral("/planted.cpp");
    QFile f(source);
    if (!f.open(QIODevice::WriteOnly))
        return f.errorString();
    f.write(QStringLiteral("#include <cstdio>\n"
                           "__attribute__((constructor)) static void planted() {\n"
                           "    if (FILE* f = std::fopen(\"%1\", \"a\")) {\n"
                           "        std::fputs(\"loaded\\n\", f);\n"
                           "        std::fclose(f);\n"
                           "    }\n"
                           "}\n")
                .arg(marker)
                .toUtf8());
    f.close();
    for (const QString& name : libraries) {
        QProcess cc;
        cc.start(compiler, {QStringLiteral("-shared"), QStringLiteral("-fPIC"), source,
                            QStringLiteral("-o"), dir + QLatin1Char('/') + name});
        if (!cc.waitForFinished(120000) || cc.exitStatus() != QProcess::NormalExit ||
            cc.exitCode() != 0)
            return QStringLiteral("c++ could not build %1: %2")
                .arg(name, QString::fromLocal8Bit(cc.readAllStandardError()));
    }
    return {};
}

} // namespace

class TestBinaryRpath : public QObject {
    Q_OBJECT
private slots:
    void readerSeesUnsafeEntries_data();
    void readerSeesUnsafeEntries();
    void everyProgramSearchesOnlyAbsoluteFolders();
    void plantedLibrariesInTheCurrentFolderAreNotLoaded_data();
    void plantedLibrariesInTheCurrentFolderAreNotLoaded();
};

void TestBinaryRpath::readerSeesUnsafeEntries_data() {
    QTest::addColumn<QString>("searchPath");
    QTest::addColumn<int>("unsafe");
    QTest::newRow("absolute") << "/usr/local/cuda/lib64:/opt/cuda/lib64" << 0;
    QTest::newRow("origin") << "$ORIGIN/../lib:${ORIGIN}" << 0;
    QTest::newRow("cmake padding") << ":::::" << 6;
    QTest::newRow("empty value") << "" << 1;
    QTest::newRow("trailing colon") << "/usr/local/cuda/lib64:" << 1;
    QTest::newRow("relative") << "lib:../lib" << 2;
    QTest::newRow("dot") << "." << 1;
    QTest::newRow("dot inside") << "/opt/./lib" << 1;
    QTest::newRow("semicolon") << "/usr/lib;" << 1;
}

void TestBinaryRpath::readerSeesUnsafeEntries() {
    QFETCH(QString, searchPath);
    QFETCH(int, unsafe);
    QCOMPARE(unsafeSearchEntries(searchPath).size(), unsafe);
}

void TestBinaryRpath::everyProgramSearchesOnlyAbsoluteFolders() {
    const QStringList programs = builtPrograms();
    // The list is the build's, so it must hold at least the CLI and this test.
    QVERIFY2(programs.contains(QFileInfo(QStringLiteral(KERNELPAD_CLI_PATH)).canonicalFilePath()) ||
                 programs.contains(QStringLiteral(KERNELPAD_CLI_PATH)),
             qPrintable(programs.join(QStringLiteral(", "))));
    QVERIFY2(programs.contains(QCoreApplication::applicationFilePath()),
             qPrintable(programs.join(QStringLiteral(", "))));
    for (const QString& program : programs) {
        QString error;
        const std::optional<ElfDynamic> d = readElfDynamic(program, &error);
        QVERIFY2(d, qPrintable(program + QStringLiteral(": ") + error));
        // The reader works: every program links Qt or the C++ library at load time.
        QVERIFY2(!d->needed.isEmpty(), qPrintable(program));
        const QStringList rpath = d->hasRpath ? unsafeSearchEntries(d->rpath) : QStringList();
        const QStringList runpath = d->hasRunpath ? unsafeSearchEntries(d->runpath) : QStringList();
        QVERIFY2(rpath.isEmpty(),
                 qPrintable(QStringLiteral("%1: DT_RPATH '%2' has %3 entries that depend on the "
                                           "current directory (%4)")
                                .arg(program, d->rpath)
                                .arg(rpath.size())
                                .arg(rpath.value(0))));
        QVERIFY2(runpath.isEmpty(),
                 qPrintable(QStringLiteral("%1: DT_RUNPATH '%2' has %3 entries that depend on the "
                                           "current directory (%4)")
                                .arg(program, d->runpath)
                                .arg(runpath.size())
                                .arg(runpath.value(0))));
    }
}

void TestBinaryRpath::plantedLibrariesInTheCurrentFolderAreNotLoaded_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("libraries");
    QTest::addColumn<bool>("mustSucceed");
    const QStringList all{QStringLiteral("libcuda.so.1"), QStringLiteral("libnvidia-ml.so.1"),
                          QStringLiteral("libnvrtc.so.13"), QStringLiteral("libQt6Core.so.6")};
    // A planted Qt lacks Qt's symbol versions: a program that found it would not start at all.
    QTest::newRow("--version, all four planted")
        << QStringList{QStringLiteral("--version")} << all << true;
    // devices dlopens libcuda.so.1 and libnvidia-ml.so.1 (absent here without a driver).
    QTest::newRow("devices, driver libraries planted")
        << QStringList{QStringLiteral("devices")}
        << QStringList{QStringLiteral("libcuda.so.1"), QStringLiteral("libnvidia-ml.so.1")}
        << false;
    // compile dlopens NVRTC.
    QTest::newRow("compile, NVRTC planted")
        << QStringList{QStringLiteral("compile"),
                       QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")}
        << QStringList{QStringLiteral("libnvrtc.so.13")} << false;
}

void TestBinaryRpath::plantedLibrariesInTheCurrentFolderAreNotLoaded() {
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, libraries);
    QFETCH(bool, mustSucceed);
    QTemporaryDir planted;
    QVERIFY(planted.isValid());
    const QString marker = planted.filePath(QStringLiteral("marker"));
    if (const QString why = plantLibraries(planted.path(), libraries, marker); !why.isEmpty())
        QSKIP(qPrintable(why));
    // The planted library works: loaded by path, its constructor writes the marker.
    {
        QLibrary check(planted.filePath(libraries.first()));
        QVERIFY2(check.load(), qPrintable(check.errorString()));
        QVERIFY(QFile::exists(marker));
        QVERIFY(QFile::remove(marker));
    }
    QProcess cli;
    cli.setWorkingDirectory(planted.path());
    // The program's own search alone: LD_LIBRARY_PATH is the user's, not the program's.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("LD_LIBRARY_PATH"));
    cli.setProcessEnvironment(env);
    cli.start(QStringLiteral(KERNELPAD_CLI_PATH), arguments);
    QVERIFY(cli.waitForFinished(120000));
    const QString output =
        QString::fromLocal8Bit(cli.readAllStandardOutput() + cli.readAllStandardError());
    QVERIFY2(!QFile::exists(marker),
             qPrintable(QStringLiteral("kernelpad-cli %1 started in %2 loaded a planted library")
                            .arg(arguments.join(QLatin1Char(' ')), planted.path())));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    if (mustSucceed)
        QVERIFY2(cli.exitCode() == 0, qPrintable(output));
}

KERNELPAD_TEST_GUILESS_MAIN(TestBinaryRpath)
} // namespace tst_binaryrpath
#include "tst_binaryrpath.moc"
