// .kpad project files: JSON round trips, broken files with messages naming the field,
// load/save, name expressions, and the example gallery listing.

#include "core/project/Examples.h"
#include "core/project/Project.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <sys/stat.h>

namespace tst_project {

using namespace kernelpad;

namespace {

QString dataFile(const QString& name) {
    return QStringLiteral(KERNELPAD_TEST_DATA_DIR "/project/") + name;
}

ArgumentSpec scalar(const QString& name, ValueType type, const QString& value) {
    ArgumentSpec arg;
    arg.name = name;
    arg.kind = ArgumentSpec::Kind::Scalar;
    arg.type = std::move(type);
    arg.value = value;
    return arg;
}

ArgumentSpec buffer(const QString& name, ValueType type, const QString& count, InitSpec init,
                    Direction direction, VerifySpec verify = {}) {
    ArgumentSpec arg;
    arg.name = name;
    arg.kind = ArgumentSpec::Kind::Buffer;
    arg.buffer.elementType = std::move(type);
    arg.buffer.count = count;
    arg.buffer.init = std::move(init);
    arg.buffer.direction = direction;
    arg.buffer.verify = std::move(verify);
    return arg;
}

/// A project that uses every argument, init and verification kind and every option.
Project fullProject() {
    Project p;
    p.name = QStringLiteral("Everything");
    p.description = QStringLiteral("Every argument kind — with non-ASCII text: µs, ±");
    p.sourceName = QStringLiteral("all.cu");
    p.source = QStringLiteral("template <typename T> __global__ void k(T* y) {}\n\"quoted\"\t\n");
    p.options.arch = QStringLiteral("sm_90");
    p.options.cppStandard = QStringLiteral("c++20");
    p.options.fastMath = true;
    p.options.fmad = false;
    p.options.lineInfo = true;
    p.options.maxRegisters = 64;
    p.options.defines = {QStringLiteral("N=256"), QStringLiteral("USE_FAST")};
    p.options.includeDirs = {QStringLiteral("include")};
    p.options.extraFlags = {QStringLiteral("--restrict"), QStringLiteral("-Xptxas"),
                            QStringLiteral("-v")};
    p.kernel = QStringLiteral("k<float>");

    StructType pair;
    pair.name = QStringLiteral("Pair");
    pair.fields = {StructField{QStringLiteral("a"), ScalarType::Int32, 1},
                   StructField{QStringLiteral("w"), ScalarType::Float64, 3}};

    InitSpec zeros;
    InitSpec ones;
    ones.kind = InitSpec::Kind::Ones;
    InitSpec constant;
    constant.kind = InitSpec::Kind::Constant;
    constant.value = -1.5;
    InitSpec iota;
    iota.kind = InitSpec::Kind::Iota;
    iota.value = 10;
    iota.step = 0.5;
    InitSpec uniform;
    uniform.kind = InitSpec::Kind::Uniform;
    uniform.low = -2;
    uniform.high = 3;
    uniform.seed = 12345;
    InitSpec normal;
    normal.kind = InitSpec::Kind::Normal;
    normal.mean = 1;
    normal.stddev = 0.25;
    normal.seed = 7;
    InitSpec file;
    file.kind = InitSpec::Kind::File;
    file.path = QStringLiteral("data/in.npy");

    VerifySpec reference;
    reference.kind = VerifySpec::Kind::Reference;
    reference.referenceKernel = QStringLiteral("k_ref<float>");
    VerifySpec expression;
    expression.kind = VerifySpec::Kind::Expression;
    expression.expression = QStringLiteral("a*x+i");
    expression.atol = 0;
    expression.rtol = 1e-3;
    VerifySpec expectedFile;
    expectedFile.kind = VerifySpec::Kind::File;
    expectedFile.path = QStringLiteral("expected.npy");

    p.arguments = {
        scalar(QStringLiteral("a"), ValueType::of(ScalarType::Float32), QStringLiteral("2.5")),
        scalar(QStringLiteral("n"), ValueType::of(ScalarType::Int64), QStringLiteral("0x10")),
        scalar(QStringLiteral("flag"), ValueType::of(ScalarType::Bool), QStringLiteral("true")),
        scalar(QStringLiteral("z"), ValueType::of(ScalarType::Complex64), QStringLiteral("1, -2")),
        scalar(QStringLiteral("h"), ValueType::of(ScalarType::Float16), QStringLiteral("0.5")),
        scalar(QStringLiteral("p"), ValueType::ofStruct(pair), QStringLiteral("5, 1, 2, 3")),
        buffer(QStringLiteral("x"), ValueType::of(ScalarType::Float32), QStringLiteral("n"), iota,
               Direction::In),
        buffer(QStringLiteral("u"), ValueType::of(ScalarType::Float64), QStringLiteral("n*2"),
               uniform, Direction::In),
        buffer(QStringLiteral("g"), ValueType::of(ScalarType::Float32), QStringLiteral("16"),
               normal, Direction::In),
        buffer(QStringLiteral("c"), ValueType::of(ScalarType::Int32), QStringLiteral("n"), constant,
               Direction::In),
        buffer(QStringLiteral("f"), ValueType::of(ScalarType::UInt8), QStringLiteral("n"), file,
               Direction::In),
        buffer(QStringLiteral("y"), ValueType::of(ScalarType::Float32), QStringLiteral("n"), ones,
               Direction::InOut, expression),
        buffer(QStringLiteral("r"), ValueType::of(ScalarType::Float32), QStringLiteral("n"), zeros,
               Direction::Out, reference),
        buffer(QStringLiteral("s"), ValueType::ofStruct(pair), QStringLiteral("4"), zeros,
               Direction::Out, expectedFile),
    };
    p.launch.grid = {8, 2, 1};
    p.launch.block = {128, 2, 1};
    p.launch.sharedMemBytes = 1024;
    p.launch.cluster = {2, 2, 1};
    p.launch.cooperative = true;
    GlobalSpec table;
    table.name = QStringLiteral("ns::table");
    table.value.elementType = ValueType::of(ScalarType::Int16);
    table.value.count = QStringLiteral("n/2");
    table.value.init.kind = InitSpec::Kind::Iota;
    table.value.direction = Direction::InOut;
    table.value.verify.kind = VerifySpec::Kind::Expression;
    table.value.verify.expression = QStringLiteral("i+1");
    p.globals = {table};
    p.timing.warmupLaunches = 1;
    p.timing.repetitions = 50;
    p.timing.bytesOverride = qint64(5) << 33;
    p.timing.flopsPerLaunch = 1e9;
    p.timing.timeLimitMs = 2000;
    return p;
}

} // namespace

class TestProject : public QObject {
    Q_OBJECT

private slots:
    void jsonRoundTrip();
    void saveAndLoad();
    void saveToMissingDirectoryFails();
    void validFileLoads();
    void brokenFiles_data();
    void brokenFiles();
    void tooLargeFile();
    void manyArgumentsAndGlobals_data();
    void manyArgumentsAndGlobals();
    void specialFileIsRefusedWithoutWaiting();
    void saveRefusesWhatCouldNotBeOpened_data();
    void saveRefusesWhatCouldNotBeOpened();
    void nameExpressions();
    void findArgument();
    void equalityFollowsJson();
    void listExamples();
    void examplesDirectoryFromEnvironment();
};

void TestProject::jsonRoundTrip() {
    const Project p = fullProject();
    const QJsonObject json = p.toJson();
    QCOMPARE(json.value(QLatin1String("format")).toString(), QStringLiteral("kernelpad-project"));
    QCOMPARE(json.value(QLatin1String("version")).toInt(), Project::kFormatVersion);
    QCOMPARE(json.value(QLatin1String("arguments")).toArray().size(), p.arguments.size());

    // Through text, as on disk.
    const QByteArray text = QJsonDocument(json).toJson();
    QString error;
    const std::optional<Project> back =
        Project::fromJson(QJsonDocument::fromJson(text).object(), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(*back == p);
    // Spot checks that do not go through JSON, so a lossy writer and reader cannot agree.
    QCOMPARE(back->source, p.source);
    QCOMPARE(back->description, p.description);
    QCOMPARE(back->kernel, p.kernel);
    QCOMPARE(back->options.maxRegisters, std::optional<int>(64));
    QCOMPARE(back->launch.cluster, (std::array<int, 3>{2, 2, 1}));
    QVERIFY(back->launch.cooperative);
    QCOMPARE(back->globals.size(), 1);
    QCOMPARE(back->globals[0].name, QStringLiteral("ns::table"));
    QCOMPARE(back->globals[0].value.count, QStringLiteral("n/2"));
    QCOMPARE(back->globals[0].value.direction, Direction::InOut);
    QCOMPARE(back->globals[0].value.verify.expression, QStringLiteral("i+1"));
    QCOMPARE(back->arguments.size(), p.arguments.size());
    for (qsizetype i = 0; i < p.arguments.size(); ++i) {
        QCOMPARE(back->arguments[i].name, p.arguments[i].name);
        QCOMPARE(back->arguments[i].kind, p.arguments[i].kind);
    }
    const ArgumentSpec* u = back->findArgument(QStringLiteral("u"));
    QVERIFY(u);
    QCOMPARE(u->buffer.init.kind, InitSpec::Kind::Uniform);
    QCOMPARE(u->buffer.init.seed, quint64(12345));
    QCOMPARE(u->buffer.count, QStringLiteral("n*2"));
    const ArgumentSpec* s = back->findArgument(QStringLiteral("s"));
    QVERIFY(s && s->buffer.elementType.isStruct());
    QCOMPARE(s->buffer.elementType.structType.fields.at(1).count, 3);
    QCOMPARE(s->buffer.verify.kind, VerifySpec::Kind::File);
    QCOMPARE(back->findArgument(QStringLiteral("y"))->buffer.verify.rtol, 1e-3);
    QVERIFY(back->launch == p.launch);
    QVERIFY(back->timing == p.timing);
    QCOMPARE(*back->timing.bytesOverride, qint64(5) << 33);
}

void TestProject::saveAndLoad() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("full.kpad"));
    const Project p = fullProject();
    QString error;
    QVERIFY2(p.save(path, &error), qPrintable(error));

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY2(text.contains("\n    \"format\""), "saved JSON should be indented");

    const std::optional<Project> back = Project::load(path, &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(*back == p);

    // Saving again over the file replaces it (QSaveFile renames into place).
    Project changed = p;
    changed.name = QStringLiteral("Renamed");
    QVERIFY2(changed.save(path, &error), qPrintable(error));
    QCOMPARE(Project::load(path, &error)->name, QStringLiteral("Renamed"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("full.kpad")});
}

void TestProject::saveToMissingDirectoryFails() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("no/such/dir/p.kpad"));
    QString error;
    QVERIFY(!fullProject().save(path, &error));
    QVERIFY2(error.contains(QLatin1String("p.kpad")), qPrintable(error));
}

void TestProject::validFileLoads() {
    // The positive control for brokenFiles: each broken file is this one with one fault.
    QString error;
    const std::optional<Project> p = Project::load(dataFile(QStringLiteral("valid.kpad")), &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->kernel, QStringLiteral("saxpy"));
    QCOMPARE(p->arguments.size(), 4);
    QCOMPARE(p->launch.block[0], 256);
    QCOMPARE(p->sourceName, QStringLiteral("saxpy.cu"));
}

void TestProject::brokenFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");

    QTest::newRow("not JSON: line and column") << "not_json.kpad"
                                               << "line 4, column";
    QTest::newRow("not an object") << "not_object.kpad"
                                   << "JSON object";
    QTest::newRow("wrong format marker") << "wrong_format.kpad"
                                         << "format: expected";
    QTest::newRow("future version")
        << "future_version.kpad"
        << "made by a newer KernelPad: version 3, this build reads up to 1";
    QTest::newRow("missing kernel") << "missing_kernel.kpad"
                                    << "kernel: missing";
    QTest::newRow("missing source") << "missing_source.kpad"
                                    << "source: missing";
    QTest::newRow("kernel not a string") << "kernel_not_string.kpad"
                                         << "kernel: expected a string, got a number";
    QTest::newRow("arguments not an array") << "arguments_not_array.kpad"
                                            << "arguments: expected an array, got an object";
    QTest::newRow("bad launch") << "bad_launch.kpad"
                                << "launch.block[0]";
    QTest::newRow("bad argument type") << "bad_argument_type.kpad"
                                       << "arguments[0].type";
    QTest::newRow("bad buffer count") << "bad_buffer_count.kpad"
                                      << "arguments[1].buffer.count";
    QTest::newRow("duplicate argument") << "duplicate_argument.kpad"
                                        << "arguments[2].name: duplicate argument name 'x'";
    QTest::newRow("bad timing") << "bad_timing.kpad"
                                << "timing.repetitions";
    QTest::newRow("missing file") << "no_such_file.kpad"
                                  << "no such file";

    // Security issue "a project file must never write the user's files": each of these was
    // compiled as soon as the project opened.
    QTest::newRow("--create-pch overwrote ~/.bashrc")
        << "extraflags_create_pch.kpad"
        << "options.extraFlags[0]: \"--create-pch=$HOME/.bashrc\" is refused: it makes NVRTC "
           "write precompiled header files";
    QTest::newRow("--time appended lines to a file")
        << "extraflags_time.kpad"
        << "options.extraFlags[1]: \"--time=/tmp/kernelpad-timing.csv\" is refused: it makes "
           "NVRTC append timing lines";
    QTest::newRow("-fdevice-time-trace wrote a .json")
        << "extraflags_device_time_trace.kpad"
        << "options.extraFlags[0]: \"-fdevice-time-trace=/tmp/kernelpad-trace\" is refused: it "
           "makes NVRTC write a trace file";
    QTest::newRow("--pre-include reads a file the include check never sees")
        << "extraflags_pre_include.kpad"
        << "options.extraFlags[0]: \"--pre-include\" is refused";
    QTest::newRow("a value token cannot hide a flag")
        << "extraflags_pair_hides_pch.kpad"
        << "options.extraFlags[0]: \"-dopt\" is refused: it takes only on";
    QTest::newRow("-I in extra flags: include dirs are their own field")
        << "extraflags_include_dir.kpad"
        << "options.extraFlags[0]: \"-I/etc\" is refused: it is set by the \"includeDirs\" "
           "option";
    QTest::newRow("unknown flag refused, allowed ones listed")
        << "extraflags_unknown.kpad"
        << "options.extraFlags[0]: \"--some-future-flag\" is refused: it is not one of the NVRTC "
           "flags KernelPad knows to read and write no files (allowed: --dopt=on";
    QTest::newRow("a newline in a define")
        << "define_newline.kpad"
        << "options.defines[0]: must not contain a control character (U+000A at position 4)";
    QTest::newRow("sourceName with a newline and a shell command (the --time file's column)")
        << "source_name_newline.kpad"
        << "sourceName: must not contain a control character (U+000A at position 9)";
    QTest::newRow("sourceName with a folder") << "source_name_folder.kpad"
                                              << "sourceName: must be a file name without a folder";
    QTest::newRow("kernel name with an escape sequence")
        << "kernel_control_char.kpad"
        << "kernel: must not contain a control character (U+001B at position 6)";
    QTest::newRow("argument name with a carriage return")
        << "argument_name_control_char.kpad"
        << "arguments[1].name: must not contain a control character (U+000D at position 2)";
    QTest::newRow("struct field name with a line separator")
        << "struct_field_control_char.kpad"
        << "arguments[0].type.struct.fields[0].name: must not contain a control character "
           "(U+2028 at position 2)";
}

void TestProject::brokenFiles() {
    QFETCH(QString, file);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!Project::load(dataFile(file), &error));
    qInfo("%s", qPrintable(error)); // the message a user would see, for review in the log
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(error.contains(file), qPrintable(QStringLiteral("should name the file: ") + error));
}

void TestProject::tooLargeFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("huge.kpad"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(qint64(17) << 20)); // sparse: cheap to make
    file.close();
    QString error;
    QVERIFY(!Project::load(path, &error));
    QVERIFY2(error.contains(QLatin1String("larger than 16 MiB, the most a project file may be")),
             qPrintable(error));
    QVERIFY2(error.contains(path), qPrintable(error));
}

void TestProject::manyArgumentsAndGlobals_data() {
    QTest::addColumn<QString>("section");
    QTest::addColumn<bool>("duplicate");
    QTest::addColumn<QString>("expected");
    // 40,000 entries compared pairwise took 7 s (arguments) and 16 s (globals) to open; one
    // hash lookup each ends at once, and a duplicate at the very end is still found.
    QTest::newRow("40,000 arguments") << "arguments" << false << QString();
    QTest::newRow("40,000 arguments, the last a duplicate")
        << "arguments" << true
        << "arguments[39999].name: duplicate argument name 'a17' (also arguments[17])";
    QTest::newRow("40,000 globals") << "globals" << false << QString();
    QTest::newRow("40,000 globals, the last a duplicate")
        << "globals" << true << "globals[39999].name: duplicate global 'g17' (also globals[17])";
}

void TestProject::manyArgumentsAndGlobals() {
    QFETCH(QString, section);
    QFETCH(bool, duplicate);
    QFETCH(QString, expected);
    constexpr int kEntries = 40000;
    Project p;
    p.kernel = QStringLiteral("k");
    p.source = QStringLiteral("__global__ void k() {}");
    QJsonObject json = p.toJson();
    QJsonArray entries;
    for (int i = 0; i < kEntries; ++i) {
        const int n = duplicate && i == kEntries - 1 ? 17 : i;
        if (section == QLatin1String("arguments")) {
            entries.append(scalar(QStringLiteral("a%1").arg(n), ValueType::of(ScalarType::Int32),
                                  QStringLiteral("1"))
                               .toJson());
        } else {
            GlobalSpec g;
            g.name = QStringLiteral("g%1").arg(n);
            entries.append(g.toJson());
        }
    }
    json.insert(section, entries);
    QString error;
    const std::optional<Project> read = Project::fromJson(json, &error);
    if (!duplicate) {
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(section == QLatin1String("arguments") ? read->arguments.size()
                                                       : read->globals.size(),
                 kEntries);
        return;
    }
    QVERIFY(!read);
    QCOMPARE(error, expected);
}

void TestProject::specialFileIsRefusedWithoutWaiting() {
    // Opening a FIFO for reading blocks until a writer comes: the loader must not.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pipe.kpad"));
    QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    QString error;
    QVERIFY(!Project::load(path, &error));
    QVERIFY2(error.contains(QLatin1String("not a regular file")) &&
                 error.contains(QLatin1String("pipe.kpad")),
             qPrintable(error));
}

void TestProject::saveRefusesWhatCouldNotBeOpened_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("mustSay");
    QTest::newRow("a flag off the allow-list") << "extraFlags"
                                               << "--create-pch=/tmp/x"
                                               << "--create-pch";
    QTest::newRow("a newline in the source name") << "sourceName"
                                                  << "a.cu\nrm -rf ~"
                                                  << "sourceName";
}
void TestProject::saveRefusesWhatCouldNotBeOpened() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, mustSay);
    Project p = fullProject();
    if (field == QLatin1String("extraFlags"))
        p.options.extraFlags = {value};
    else
        p.sourceName = value;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("p.kpad"));
    QString error;
    QVERIFY(!p.save(path, &error));
    QVERIFY2(error.contains(mustSay) && error.contains(QLatin1String("p.kpad")), qPrintable(error));
    QVERIFY(!QFile::exists(path));
}

void TestProject::nameExpressions() {
    Project p = fullProject();
    // The reference kernel appears twice: it must be handed to NVRTC once.
    ArgumentSpec second = *p.findArgument(QStringLiteral("r"));
    second.name = QStringLiteral("r2");
    p.arguments.append(second);
    ArgumentSpec plain = second;
    plain.name = QStringLiteral("r3");
    plain.buffer.verify.referenceKernel = QStringLiteral("plain_ref");
    p.arguments.append(plain);
    QCOMPARE(p.nameExpressions(),
             (QStringList{QStringLiteral("k<float>"), QStringLiteral("k_ref<float>")}));

    p.kernel = QStringLiteral("saxpy");
    QCOMPARE(p.nameExpressions(), QStringList{QStringLiteral("k_ref<float>")});
    p.arguments.clear();
    QVERIFY(p.nameExpressions().isEmpty());
}

void TestProject::findArgument() {
    const Project p = fullProject();
    const ArgumentSpec* y = p.findArgument(QStringLiteral("y"));
    QVERIFY(y);
    QCOMPARE(y->buffer.direction, Direction::InOut);
    QVERIFY(!p.findArgument(QStringLiteral("Y")));
    QVERIFY(!p.findArgument(QString()));
}

void TestProject::equalityFollowsJson() {
    const Project a = fullProject();
    Project b = a;
    QVERIFY(a == b);
    b.arguments[0].value = QStringLiteral("3");
    QVERIFY(!(a == b));
    b = a;
    b.timing.flopsPerLaunch.reset();
    QVERIFY(!(a == b));
}

void TestProject::listExamples() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString& file, const QString& name, const QString& description) {
        Project p;
        p.name = name;
        p.description = description;
        p.source = QStringLiteral("__global__ void k() {}");
        p.kernel = QStringLiteral("k");
        QString error;
        QVERIFY2(p.save(dir.filePath(file), &error), qPrintable(error));
    };
    write(QStringLiteral("b.kpad"), QStringLiteral("Zeta"), QStringLiteral("last"));
    write(QStringLiteral("a.kpad"), QStringLiteral("alpha"), QStringLiteral("first"));
    write(QStringLiteral("noname.kpad"), QString(), QString());
    write(QStringLiteral("ignored.json"), QStringLiteral("Not an example"), QString());
    if (QTest::currentTestFailed())
        return;
    QVERIFY(QFile::copy(dataFile(QStringLiteral("bad_launch.kpad")),
                        dir.filePath(QStringLiteral("broken.kpad"))));

    const QVector<ExampleInfo> examples = kernelpad::listExamples(dir.path());
    QStringList names;
    for (const ExampleInfo& e : examples)
        names << e.name;
    QCOMPARE(names, (QStringList{QStringLiteral("alpha"), QStringLiteral("noname"),
                                 QStringLiteral("Zeta")}));
    QCOMPARE(examples[0].description, QStringLiteral("first"));
    QCOMPARE(QFileInfo(examples[2].path).fileName(), QStringLiteral("b.kpad"));
    QVERIFY(QFileInfo(examples[2].path).isAbsolute());

    QVERIFY(kernelpad::listExamples(dir.filePath(QStringLiteral("missing"))).isEmpty());
}

void TestProject::examplesDirectoryFromEnvironment() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("KERNELPAD_EXAMPLES", dir.path().toLocal8Bit());
    QCOMPARE(examplesDirectory(), QFileInfo(dir.path()).canonicalFilePath());

    // A variable pointing nowhere falls through to the other places, never to itself.
    qputenv("KERNELPAD_EXAMPLES", dir.filePath(QStringLiteral("missing")).toLocal8Bit());
    const QString fallback = examplesDirectory();
    QVERIFY(!fallback.contains(QLatin1String("missing")));
    if (QFileInfo(QStringLiteral(KERNELPAD_EXAMPLES_DIR)).isDir())
        QVERIFY(!fallback.isEmpty());
    qunsetenv("KERNELPAD_EXAMPLES");
}

KERNELPAD_TEST_GUILESS_MAIN(TestProject)
} // namespace tst_project
#include "tst_project.moc"
