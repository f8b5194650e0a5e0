// ProgramOptions: flags from set fields only, validation messages, JSON round trip.

#include "core/compile/ProgramOptions.h"
#include "core/compile/Toolkit.h"

#include <QJsonDocument>
#include <QtTest>

using namespace kernelpad;

Q_DECLARE_METATYPE(kernelpad::ProgramOptions)

class TestProgramOptions : public QObject {
    Q_OBJECT

private slots:
    void flagsFromFields_data();
    void flagsFromFields();
    void toolkitIncludesAlwaysLast();
    void emptyArchFallsBack();
    void validate_data();
    void validate();
    void jsonRoundTrip_data();
    void jsonRoundTrip();
    void fromJsonRejects_data();
    void fromJsonRejects();
    void fromJsonIgnoresUnknownFields();
    void equality();
};

namespace {

/// toFlags() without the toolkit include dirs, which depend on the machine.
QStringList userFlags(const ProgramOptions& options, const QString& arch) {
    QStringList flags = options.toFlags(arch);
    for (const QString& dir : cudaToolkitIncludeDirs())
        flags.removeOne(QStringLiteral("-I") + dir);
    return flags;
}

} // namespace

void TestProgramOptions::flagsFromFields_data() {
    QTest::addColumn<ProgramOptions>("options");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("nothing set: only the arch") << ProgramOptions{} << QStringList{"-arch=sm_90"};
    ProgramOptions std20;
    std20.cppStandard = "c++20";
    QTest::newRow("cppStandard") << std20 << QStringList{"-arch=sm_90", "-std=c++20"};
    ProgramOptions fast;
    fast.fastMath = true;
    QTest::newRow("fastMath on") << fast << QStringList{"-arch=sm_90", "--use_fast_math"};
    ProgramOptions noFast;
    noFast.fastMath = false;
    QTest::newRow("fastMath off adds nothing") << noFast << QStringList{"-arch=sm_90"};
    ProgramOptions fmadOff;
    fmadOff.fmad = false;
    QTest::newRow("fmad false") << fmadOff << QStringList{"-arch=sm_90", "--fmad=false"};
    ProgramOptions fmadOn;
    fmadOn.fmad = true;
    QTest::newRow("fmad true") << fmadOn << QStringList{"-arch=sm_90", "--fmad=true"};
    ProgramOptions debug;
    debug.lineInfo = true;
    debug.deviceDebug = true;
    QTest::newRow("lineinfo and -G") << debug << QStringList{"-arch=sm_90", "-lineinfo", "-G"};
    ProgramOptions regs;
    regs.maxRegisters = 64;
    QTest::newRow("maxRegisters") << regs << QStringList{"-arch=sm_90", "--maxrregcount=64"};
    ProgramOptions defs;
    defs.defines = QStringList{"N=256", "USE_FAST"};
    QTest::newRow("defines") << defs << QStringList{"-arch=sm_90", "-DN=256", "-DUSE_FAST"};
    ProgramOptions incs;
    incs.includeDirs = QStringList{"/opt/inc", "rel/dir"};
    QTest::newRow("include dirs") << incs << QStringList{"-arch=sm_90", "-I/opt/inc", "-Irel/dir"};
    ProgramOptions extra;
    extra.extraFlags = QStringList{"-default-device", "--extra-device-vectorization"};
    QTest::newRow("extra flags verbatim")
        << extra << QStringList{"-arch=sm_90", "-default-device", "--extra-device-vectorization"};
    ProgramOptions all;
    all.arch = "sm_80"; // the resolved arch wins over the option
    all.cppStandard = "c++17";
    all.fastMath = true;
    all.fmad = true;
    all.lineInfo = true;
    all.maxRegisters = 32;
    all.defines = QStringList{"T=float"};
    QTest::newRow("everything, resolved arch wins")
        << all << QStringList{"-arch=sm_90", "-std=c++17",        "--use_fast_math", "--fmad=true",
                              "-lineinfo",   "--maxrregcount=32", "-DT=float"};
}

void TestProgramOptions::flagsFromFields() {
    QFETCH(ProgramOptions, options);
    QFETCH(QStringList, expected);
    QCOMPARE(userFlags(options, QStringLiteral("sm_90")), expected);
}

void TestProgramOptions::toolkitIncludesAlwaysLast() {
    const QStringList dirs = cudaToolkitIncludeDirs();
    if (dirs.isEmpty())
        QSKIP("no CUDA toolkit found on this machine");
    QVERIFY(QFileInfo::exists(dirs.first() + "/cuda_fp16.h"));
    QVERIFY(dirs.last().endsWith("/include/cccl"));
    ProgramOptions options;
    options.includeDirs = QStringList{"/mine"};
    const QStringList flags = options.toFlags(QStringLiteral("sm_90"));
    QCOMPARE(flags.mid(flags.size() - 2), (QStringList{"-I" + dirs.at(0), "-I" + dirs.at(1)}));
    QVERIFY(flags.indexOf("-I/mine") < flags.indexOf("-I" + dirs.at(0)));
}

void TestProgramOptions::emptyArchFallsBack() {
    ProgramOptions options;
    QCOMPARE(options.toFlags({}).first(), QStringLiteral("-arch=") + kDefaultArch);
    options.arch = "sm_89";
    QCOMPARE(options.toFlags({}).first(), QStringLiteral("-arch=sm_89"));
}

void TestProgramOptions::validate_data() {
    QTest::addColumn<ProgramOptions>("options");
    QTest::addColumn<QString>("fieldInMessage"); // empty: valid

    QTest::newRow("defaults are valid") << ProgramOptions{} << QString();
    ProgramOptions archA;
    archA.arch = "sm_90a";
    QTest::newRow("sm_90a is valid") << archA << QString();
    ProgramOptions compute;
    compute.arch = "compute_90";
    QTest::newRow("virtual arch rejected") << compute << "arch";
    ProgramOptions archJunk;
    archJunk.arch = "sm_";
    QTest::newRow("arch without number") << archJunk << "arch";
    ProgramOptions archCase;
    archCase.arch = "SM_90";
    QTest::newRow("arch upper case") << archCase << "arch";
    ProgramOptions std03;
    std03.cppStandard = "c++03";
    QTest::newRow("c++03 not offered") << std03 << "cppStandard";
    ProgramOptions std20;
    std20.cppStandard = "c++20";
    QTest::newRow("c++20 ok") << std20 << QString();
    ProgramOptions fewRegs;
    fewRegs.maxRegisters = 15;
    QTest::newRow("15 registers too few") << fewRegs << "maxRegisters";
    ProgramOptions manyRegs;
    manyRegs.maxRegisters = 256;
    QTest::newRow("256 registers too many") << manyRegs << "maxRegisters";
    ProgramOptions edgeRegs;
    edgeRegs.maxRegisters = 255;
    QTest::newRow("255 registers ok") << edgeRegs << QString();
    ProgramOptions badDefine;
    badDefine.defines = QStringList{"1N=3"};
    QTest::newRow("define starting with a digit") << badDefine << "defines";
    ProgramOptions spaceDefine;
    spaceDefine.defines = QStringList{"A B"};
    QTest::newRow("define with a space in the name") << spaceDefine << "defines";
    ProgramOptions emptyDefine;
    emptyDefine.defines = QStringList{""};
    QTest::newRow("empty define") << emptyDefine << "defines";
    ProgramOptions valueDefine;
    valueDefine.defines = QStringList{"EXPR=(a + b)", "_X="};
    QTest::newRow("define values are free text") << valueDefine << QString();
}

void TestProgramOptions::validate() {
    QFETCH(ProgramOptions, options);
    QFETCH(QString, fieldInMessage);
    const QString message = options.validate();
    if (fieldInMessage.isEmpty()) {
        QVERIFY2(message.isEmpty(), qPrintable(message));
    } else {
        QVERIFY2(message.startsWith(fieldInMessage), qPrintable(message));
    }
}

void TestProgramOptions::jsonRoundTrip_data() {
    QTest::addColumn<ProgramOptions>("options");
    QTest::newRow("empty") << ProgramOptions{};
    ProgramOptions full;
    full.arch = "sm_90a";
    full.cppStandard = "c++17";
    full.fastMath = false;
    full.fmad = true;
    full.lineInfo = true;
    full.deviceDebug = false;
    full.maxRegisters = 128;
    full.defines = QStringList{"N=4", "FLAG"};
    full.includeDirs = QStringList{"include", "/abs"};
    full.extraFlags = QStringList{"-default-device"};
    QTest::newRow("every field, false kept distinct from unset") << full;
}

void TestProgramOptions::jsonRoundTrip() {
    QFETCH(ProgramOptions, options);
    // Through text, as a project file would be.
    const QByteArray text = QJsonDocument(options.toJson()).toJson();
    QString error;
    const auto back = ProgramOptions::fromJson(QJsonDocument::fromJson(text).object(), &error);
    QVERIFY2(back.has_value(), qPrintable(error));
    QVERIFY(*back == options);
    QCOMPARE(back->fastMath, options.fastMath);
}

void TestProgramOptions::fromJsonRejects_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::newRow("arch is a number") << QByteArray(R"({"arch": 90})") << "arch";
    QTest::newRow("fastMath is a string") << QByteArray(R"({"fastMath": "yes"})") << "fastMath";
    QTest::newRow("maxRegisters fractional")
        << QByteArray(R"({"maxRegisters": 32.5})") << "maxRegisters";
    QTest::newRow("maxRegisters a string")
        << QByteArray(R"({"maxRegisters": "32"})") << "maxRegisters";
    QTest::newRow("defines not an array") << QByteArray(R"({"defines": "N=1"})") << "defines";
    QTest::newRow("includeDirs holds a number")
        << QByteArray(R"({"includeDirs": ["a", 3]})") << "includeDirs";
}

void TestProgramOptions::fromJsonRejects() {
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QString error;
    const auto options = ProgramOptions::fromJson(QJsonDocument::fromJson(json).object(), &error);
    QVERIFY(!options.has_value());
    QVERIFY2(error.contains('"' + field + '"'), qPrintable(error));
}

void TestProgramOptions::fromJsonIgnoresUnknownFields() {
    QString error;
    const auto options = ProgramOptions::fromJson(
        QJsonDocument::fromJson(R"({"futureOption": [1,2], "arch": "sm_80"})").object(), &error);
    QVERIFY2(options.has_value(), qPrintable(error));
    QCOMPARE(options->arch, std::optional<QString>("sm_80"));
}

void TestProgramOptions::equality() {
    ProgramOptions a;
    ProgramOptions b;
    QVERIFY(a == b);
    b.fmad = false;
    QVERIFY(!(a == b));
    a.fmad = false;
    QVERIFY(a == b);
    a.defines << "X";
    QVERIFY(!(a == b));
}

QTEST_GUILESS_MAIN(TestProgramOptions)
#include "tst_programoptions.moc"
