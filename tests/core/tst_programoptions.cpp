// ProgramOptions: flags from set fields only, validation messages, JSON round trip.

#include "../support/TestMain.h"
#include "core/compile/NvrtcFlags.h"
#include "core/compile/ProgramOptions.h"
#include "core/compile/Toolkit.h"

#include <QJsonDocument>
#include <QtTest>

namespace tst_programoptions {

using namespace kernelpad;

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
    void allowedExtraFlags_data();
    void allowedExtraFlags();
    void refusedExtraFlags_data();
    void refusedExtraFlags();
    void toFlagsEmitsOnlyListedFlags_data();
    void toFlagsEmitsOnlyListedFlags();
    void controlCharactersRefused_data();
    void controlCharactersRefused();
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
    QTest::newRow("virtual arch compute_90 is valid (PTX for the driver's JIT)")
        << compute << QString();
    ProgramOptions computeA;
    computeA.arch = "compute_90a";
    QTest::newRow("compute_90a is valid") << computeA << QString();
    ProgramOptions computeJunk;
    computeJunk.arch = "compute_";
    QTest::newRow("compute without number") << computeJunk << "arch";
    ProgramOptions lto;
    lto.arch = "lto_90";
    QTest::newRow("lto_90 is not an arch KernelPad loads") << lto << "arch";
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
    // NVRTC's built-in header has a template parameter T: -DT=float breaks every compile.
    ProgramOptions headerName;
    headerName.defines = QStringList{"ELEM=float", "T=float"};
    QTest::newRow("define named as a name of NVRTC's own header")
        << headerName << "defines: \"T=float\"";
    ProgramOptions longerName;
    longerName.defines = QStringList{"TILE=32", "Tx=1"};
    QTest::newRow("longer names are fine") << longerName << QString();
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
        << QByteArray(R"({"includeDirs": ["a", 3]})") << "includeDirs[1]";
}

void TestProgramOptions::fromJsonRejects() {
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QString error;
    const auto options = ProgramOptions::fromJson(QJsonDocument::fromJson(json).object(), &error);
    QVERIFY(!options.has_value());
    // Named by its path, as every loader names a field ("options.includeDirs[1]: ..." in a
    // project).
    QVERIFY2(error.startsWith(field + QStringLiteral(": expected ")), qPrintable(error));
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

void TestProgramOptions::allowedExtraFlags_data() {
    QTest::addColumn<QStringList>("extraFlags");
    const QList<QStringList> rows{
        {"--dopt=on"},
        {"-dopt=on"},
        {"-dopt", "on"},
        {"--ftz=true"},
        {"-ftz", "false"},
        {"--prec-div=false"},
        {"-prec-sqrt=true"},
        {"--extra-device-vectorization"},
        {"-extra-device-vectorization"},
        {"--restrict"},
        {"-w"},
        {"--disable-warnings"},
        {"--diag-suppress=177"},
        {"-diag-suppress=177,550"},
        {"--diag-suppress", "177"},
        {"--diag-error=20012"},
        {"--diag-warn=177"},
        {"--display-error-number"},
        {"-err-no"},
        {"--no-display-error-number"},
        {"-no-err-no"},
        {"-default-device"},
        {"--device-as-default-execution-space"},
        {"-UFOO"},
        {"-U", "FOO"},
        {"--undefine-macro=FOO"},
        {"--undefine-macro", "FOO"},
        {"--relocatable-device-code=false"},
        {"-rdc=false"},
        {"-Xptxas", "-v"},
        {"-Xptxas=-O3"},
        {"--ptxas-options=--warn-on-spills"},
        {"--ptxas-options", "--warn-on-local-memory-usage"},
        {"-device-int128"},
        {"--builtin-move-forward=true"},
        {"--builtin-initializer-list=false"},
        {"-brief-diag=true"},
        {"--optimization-info=inline"},
        {"--modify-stack-limit=false"},
        {"--device-stack-protector=true"},
        {"-w", "--restrict", "-Xptxas", "-v", "-dopt", "on"},
    };
    for (const QStringList& row : rows)
        QTest::newRow(qPrintable(row.join(' '))) << row;
}

void TestProgramOptions::allowedExtraFlags() {
    QFETCH(QStringList, extraFlags);
    ProgramOptions options;
    options.extraFlags = extraFlags;
    QVERIFY2(options.validate().isEmpty(), qPrintable(options.validate()));
    QString error;
    const auto loaded = ProgramOptions::fromJson(options.toJson(), &error);
    QVERIFY2(loaded.has_value(), qPrintable(error));
    QCOMPARE(loaded->extraFlags, extraFlags);
    // In order, right after the typed fields.
    QCOMPARE(userFlags(options, QStringLiteral("sm_90")),
             QStringList{QStringLiteral("-arch=sm_90")} + extraFlags);
}

void TestProgramOptions::refusedExtraFlags_data() {
    QTest::addColumn<QStringList>("extraFlags");
    QTest::addColumn<int>("index");      // of the refused token
    QTest::addColumn<QString>("reason"); // part of the sentence saying why

    QTest::newRow("--create-pch writes a file")
        << QStringList{"--create-pch=/home/u/.bashrc"} << 0 << "write precompiled header files";
    QTest::newRow("-create-pch, one dash") << QStringList{"-create-pch=x"} << 0 << "precompiled";
    QTest::newRow("--use-pch reads a file") << QStringList{"--use-pch=x.pch"} << 0 << "read a";
    QTest::newRow("--pch-dir") << QStringList{"--pch-dir=/tmp"} << 0 << "precompiled";
    QTest::newRow("--pch") << QStringList{"--pch"} << 0 << "precompiled";
    QTest::newRow("--time appends to a file") << QStringList{"--time=t.csv"} << 0 << "timing";
    QTest::newRow("-time as a pair") << QStringList{"-time", "t.csv"} << 0 << "timing";
    QTest::newRow("-fdevice-time-trace")
        << QStringList{"-fdevice-time-trace=trace"} << 0 << "trace file";
    QTest::newRow("--pre-include") << QStringList{"--pre-include=/dev/zero"} << 0 << "header";
    QTest::newRow("-include") << QStringList{"-include", "x.h"} << 0 << "header";
    QTest::newRow("-I is the includeDirs field") << QStringList{"-I/etc"} << 0 << "includeDirs";
    QTest::newRow("-I as a pair") << QStringList{"-I", "/etc"} << 0 << "includeDirs";
    QTest::newRow("--include-path") << QStringList{"--include-path=/etc"} << 0 << "includeDirs";
    QTest::newRow("-D is the defines field") << QStringList{"-DX=1"} << 0 << "defines";
    QTest::newRow("-arch is the arch field") << QStringList{"-arch=sm_80"} << 0 << "\"arch\"";
    QTest::newRow("--gpu-architecture")
        << QStringList{"--gpu-architecture", "sm_80"} << 0 << "\"arch\"";
    QTest::newRow("-std is the cppStandard field")
        << QStringList{"-std=c++17"} << 0 << "cppStandard";
    QTest::newRow("--use_fast_math is the fastMath field")
        << QStringList{"--use_fast_math"} << 0 << "fastMath";
    QTest::newRow("-G is the deviceDebug field") << QStringList{"-G"} << 0 << "deviceDebug";
    QTest::newRow("-dlto emits LTO IR") << QStringList{"-dlto"} << 0 << "cannot load";
    QTest::newRow("-dc needs a link step") << QStringList{"-dc"} << 0 << "cannot load";
    QTest::newRow("unknown flag") << QStringList{"--future-flag"} << 0 << "not one of";
    QTest::newRow("not a flag at all") << QStringList{"hello"} << 0 << "not one of";
    QTest::newRow("short name after two dashes") << QStringList{"--w"} << 0 << "not one of";
    QTest::newRow("allowed, then refused")
        << QStringList{"-w", "--restrict", "--time=x"} << 2 << "timing";
    QTest::newRow("a pair's value cannot be a flag")
        << QStringList{"-dopt", "--create-pch=x"} << 0 << "takes only on";
    QTest::newRow("dopt off is refused by NVRTC 13")
        << QStringList{"--dopt=off"} << 0 << "takes only on";
    QTest::newRow("ftz yes is not a bool") << QStringList{"--ftz=yes"} << 0 << "true or false";
    QTest::newRow("a switch with a value") << QStringList{"--restrict=1"} << 0 << "no value";
    QTest::newRow("diag number not a number")
        << QStringList{"--diag-suppress=abc"} << 0 << "diagnostic numbers";
    QTest::newRow("diag number with its -D suffix")
        << QStringList{"--diag-suppress=177-D"} << 0 << "diagnostic numbers";
    QTest::newRow("diag number zero")
        << QStringList{"--diag-suppress=0"} << 0 << "diagnostic numbers";
    QTest::newRow("-U of a non-identifier") << QStringList{"-U", "A B"} << 0 << "macro name";
    QTest::newRow("a value flag last, without its value")
        << QStringList{"-w", "-U"} << 1 << "expects a value";
    QTest::newRow("-Xptxas value that writes a file")
        << QStringList{"-Xptxas", "--output-file=/tmp/x"} << 0 << "ptxas option";
    QTest::newRow("-Xptxas with a list") << QStringList{"-Xptxas=-v,-O2"} << 0 << "ptxas option";
    QTest::newRow("a value NVRTC takes only after =")
        << QStringList{"--optimization-info", "inline"} << 0 << "after \"=\"";
    QTest::newRow("relocatable code on") << QStringList{"-rdc=true"} << 0 << "only false";
}

void TestProgramOptions::refusedExtraFlags() {
    QFETCH(QStringList, extraFlags);
    QFETCH(int, index);
    QFETCH(QString, reason);
    const QString flag = extraFlags.at(index);
    const QString expected =
        QStringLiteral("extraFlags[%1]: \"%2\" is refused: ").arg(index).arg(flag);

    ProgramOptions options;
    options.extraFlags = extraFlags;
    // On compile: validate() names the index, the flag, and why.
    const QString message = options.validate();
    QVERIFY2(message.startsWith(expected), qPrintable(message));
    QVERIFY2(message.contains(reason), qPrintable(message));
    // On load: the project does not open, with the same message.
    QString error;
    const auto loaded = ProgramOptions::fromJson(options.toJson(), &error);
    QVERIFY(!loaded.has_value());
    QCOMPARE(error, message);
    // And none of it reaches NVRTC even if a caller skips validate().
    const QStringList flags = options.toFlags(QStringLiteral("sm_90"));
    for (const QString& token : extraFlags) {
        if (token != QLatin1String("-w") && token != QLatin1String("--restrict"))
            QVERIFY2(!flags.contains(token), qPrintable(flags.join(' ')));
    }
}

void TestProgramOptions::toFlagsEmitsOnlyListedFlags_data() {
    QTest::addColumn<ProgramOptions>("options");
    QTest::addColumn<QString>("arch");

    QTest::newRow("defaults") << ProgramOptions{} << "sm_90";
    ProgramOptions everything;
    everything.cppStandard = "c++20";
    everything.fastMath = true;
    everything.fmad = false;
    everything.lineInfo = true;
    everything.deviceDebug = true;
    everything.maxRegisters = 128;
    everything.defines = QStringList{"N=3", "FLAG", "EXPR=(a + b)"};
    everything.includeDirs = QStringList{"/opt/include", "rel/dir"};
    everything.extraFlags = QStringList{"-Xptxas", "-v", "--restrict"};
    QTest::newRow("every field and allowed extras") << everything << "sm_90a";
    ProgramOptions badValues;
    badValues.cppStandard = "c++98";
    badValues.maxRegisters = 4;
    badValues.defines = QStringList{"1N=2", "X=1\n#include \"/dev/zero\"", ""};
    badValues.includeDirs = QStringList{"", "a\nb"};
    QTest::newRow("invalid field values are left out") << badValues << "sm_90";
    ProgramOptions refused;
    refused.extraFlags = QStringList{"-w", "--create-pch=/home/u/.bashrc"};
    QTest::newRow("refused extras are left out, all of them") << refused << "sm_90";
    ProgramOptions dangling;
    dangling.extraFlags = QStringList{"-U"};
    // Without the check "-U" would take the toolkit's "-I..." that follows as its value.
    QTest::newRow("a dangling value flag cannot eat the next flag") << dangling << "sm_90";
    QTest::newRow("bad arch from the caller") << ProgramOptions{} << "sm_90 --time=x";
}

void TestProgramOptions::toFlagsEmitsOnlyListedFlags() {
    QFETCH(ProgramOptions, options);
    QFETCH(QString, arch);
    const QStringList flags = options.toFlags(arch);
    const std::optional<FlagRefusal> refusal = checkNvrtcFlags(flags);
    QVERIFY2(!refusal, qPrintable(refusal ? refusal->message() : QString()));
    for (const QString& token : flags)
        QVERIFY2(!token.contains(u'\n') && !token.contains(QLatin1String("pch")) &&
                     !token.contains(QLatin1String("time")),
                 qPrintable(token));
}

void TestProgramOptions::controlCharactersRefused_data() {
    QTest::addColumn<ProgramOptions>("options");
    QTest::addColumn<QString>("message");
    ProgramOptions define;
    define.defines = QStringList{"OK", "N=1\n#include \"/dev/zero\""};
    QTest::newRow("newline in a define value")
        << define << "defines[1]: must not contain a control character (U+000A at position 4)";
    ProgramOptions dir;
    dir.includeDirs = QStringList{QStringLiteral("inc\x7f")};
    QTest::newRow("DEL in an include dir")
        << dir << "includeDirs[0]: must not contain a control character (U+007F at position 4)";
    ProgramOptions arch;
    arch.arch = QStringLiteral("sm_90\u2029");
    QTest::newRow("paragraph separator in arch")
        << arch << "arch: must not contain a control character (U+2029 at position 6)";
    ProgramOptions cpp;
    cpp.cppStandard = QStringLiteral("c++17\t");
    QTest::newRow("tab in cppStandard")
        << cpp << "cppStandard: must not contain a control character (U+0009 at position 6)";
    ProgramOptions flag;
    flag.extraFlags = QStringList{"-w\n--time=x"};
    QTest::newRow("newline in an extra flag, quoted escaped")
        << flag
        << "extraFlags[0]: \"-w\\u000A--time=x\" is refused: it contains a control "
           "character";
}

void TestProgramOptions::controlCharactersRefused() {
    QFETCH(ProgramOptions, options);
    QFETCH(QString, message);
    QCOMPARE(options.validate(), message);
    QString error;
    QVERIFY(!ProgramOptions::fromJson(options.toJson(), &error));
    QCOMPARE(error, message);
}

KERNELPAD_TEST_GUILESS_MAIN(TestProgramOptions)
} // namespace tst_programoptions
#include "tst_programoptions.moc"
