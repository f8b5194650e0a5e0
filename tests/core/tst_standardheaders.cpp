// A kernel file that nvcc accepts with the usual C and C++ standard headers compiles under
// NVRTC too (core/compile/StandardHeaders.h), with the names where nvcc users expect them;
// a header that cannot work in device code is named, with what to use instead, on the line
// that includes it.

#include "../support/TestMain.h"
#include "core/compile/Program.h"
#include "core/compile/Toolkit.h"

#include <QTemporaryDir>
#include <QtTest>

namespace tst_standardheaders {

using namespace kernelpad;

namespace {

CompileResult compileIn(const QString& folder, const QString& source,
                        const QString& name = QStringLiteral("mine.cu")) {
    return Program(source, name, ProgramOptions{}, folder).compile(QStringLiteral("sm_90"));
}

QString firstError(const CompileResult& result) {
    for (const Diagnostic& d : result.diagnostics) {
        if (d.severity == Diagnostic::Severity::Error)
            return QStringLiteral("%1:%2: %3").arg(d.file).arg(d.line).arg(d.message);
    }
    return result.log + result.error;
}

} // namespace

class TestStandardHeaders : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void headerCompiles_data();
    void headerCompiles();
    void typicalKernelFileCompiles();
    void hostOnlyHeaderNamedOnItsLine_data();
    void hostOnlyHeaderNamedOnItsLine();
    void guardedHostIncludeCompiles();
    void projectHeaderOfAStandardNameWins();

private:
    QTemporaryDir m_dir;
};

void TestStandardHeaders::initTestCase() {
    QVERIFY(m_dir.isValid());
    if (cudaToolkitRoot().isEmpty())
        QSKIP("no CUDA toolkit headers here (libcu++ is part of the toolkit)");
    if (Program::nvrtcVersion().isEmpty())
        QSKIP("NVRTC cannot be loaded");
}

void TestStandardHeaders::headerCompiles_data() {
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("body"); // the kernel's body: names as nvcc users write them
    QTest::newRow("cstdint") << "cstdint"
                             << "std::uint32_t a = UINT32_MAX; uint64_t b = a; int8_t c = "
                                "INT8_MAX; out[0] = float(b + c + sizeof(std::int64_t));";
    QTest::newRow("stdint.h") << "stdint.h"
                              << "uint32_t a = 1; out[0] = float(a);";
    QTest::newRow("cstdio") << "cstdio"
                            << "std::printf(\"%f\\n\", out[0]); printf(\"x\\n\");";
    QTest::newRow("stdio.h") << "stdio.h"
                             << "printf(\"%d\\n\", 1);";
    QTest::newRow("climits") << "climits"
                             << "out[0] = float(INT_MAX) + float(CHAR_BIT);";
    QTest::newRow("type_traits")
        << "type_traits"
        << "static_assert(std::is_same_v<std::decay_t<const int&>, int>, \"\"); "
           "static_assert(std::is_floating_point<float>::value, \"\"); out[0] = 1;";
    QTest::newRow("limits") << "limits"
                            << "out[0] = std::numeric_limits<float>::max() + "
                               "std::numeric_limits<int>::lowest();";
    QTest::newRow("utility") << "utility"
                             << "float a = 1, b = 2; std::swap(a, b); auto p = std::make_pair(a, "
                                "b); out[0] = std::move(p.first) + p.second;";
    QTest::newRow("cmath") << "cmath"
                           << "out[0] = std::sqrt(out[1]) + sqrtf(out[2]) + std::fabs(out[3]) + "
                              "fabs(out[4]) + std::pow(out[5], 2.0f) + std::isnan(out[6]) + "
                              "std::floor(out[7]) + std::abs(-1.5f) + float(M_PI) + INFINITY;";
    QTest::newRow("math.h") << "math.h"
                            << "out[0] = sqrtf(out[1]) + float(M_PI);";
    QTest::newRow("cstddef") << "cstddef"
                             << "std::size_t n = 1; ptrdiff_t d = 0; out[0] = n + d;";
    QTest::newRow("cfloat") << "cfloat"
                            << "out[0] = FLT_MAX + FLT_EPSILON + float(DBL_MIN);";
    QTest::newRow("float.h") << "float.h"
                             << "out[0] = FLT_MIN;";
    QTest::newRow("cassert") << "cassert"
                             << "assert(out != nullptr); out[0] = 1;";
    QTest::newRow("cstdlib") << "cstdlib"
                             << "out[0] = float(std::abs(-3) + abs(-2));";
    QTest::newRow("cstring") << "cstring"
                             << "std::memcpy(out, out + 1, sizeof(float));";
    QTest::newRow("algorithm") << "algorithm"
                               << "out[0] = std::min(out[1], out[2]) + std::max(1.0f, out[3]) "
                                  "+ std::clamp(out[4], 0.0f, 1.0f);";
    QTest::newRow("array") << "array"
                           << "std::array<float, 3> a{1, 2, 3}; out[0] = a[2];";
    QTest::newRow("tuple") << "tuple"
                           << "auto t = std::make_tuple(1, 2.0f); out[0] = "
                              "std::get<1>(t);";
}

void TestStandardHeaders::headerCompiles() {
    QFETCH(QString, header);
    QFETCH(QString, body);
    const QString source =
        QStringLiteral("#include <%1>\n__global__ void k(float* out) { %2 }\n").arg(header, body);
    const CompileResult result = compileIn(m_dir.path(), source);
    QVERIFY2(result.ok, qPrintable(firstError(result)));
}

void TestStandardHeaders::typicalKernelFileCompiles() {
    // All at once and with `using namespace std`, where libcu++'s functions beside NVRTC's
    // builtin ones of the same signature would make a call ambiguous.
    const QString source = QStringLiteral(
        "#include <cstdint>\n#include <cstdio>\n#include <climits>\n#include <type_traits>\n"
        "#include <limits>\n#include <utility>\n#include <cmath>\n#include <cstddef>\n"
        "#include <cfloat>\n#include <cassert>\n#include <cstdlib>\n"
        "using namespace std;\n"
        "template <typename T> __device__ T twice(T&& v) { return std::forward<T>(v) * 2; }\n"
        "__global__ void k(float* out, std::uint32_t* bits, size_t n) {\n"
        "    static_assert(is_same_v<uint32_t, std::uint32_t>, \"\");\n"
        "    if (n == 0 || n > INT_MAX) { printf(\"bad n %llu\\n\", (unsigned long long)n); "
        "return; }\n"
        "    out[0] = sqrt(out[1]) + fabs(out[2]) + float(abs(-2)) + floor(out[3]) + FLT_MAX +\n"
        "             numeric_limits<float>::epsilon() + twice(1.5f) + sqrtf(2.0f);\n"
        "    bits[0] = UINT32_MAX;\n"
        "}\n");
    const CompileResult result = compileIn(m_dir.path(), source);
    QVERIFY2(result.ok, qPrintable(firstError(result)));
    QCOMPARE(result.kernels.size(), 1);
}

void TestStandardHeaders::hostOnlyHeaderNamedOnItsLine_data() {
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("advice");
    QTest::newRow("iostream") << "iostream"
                              << "printf";
    QTest::newRow("vector") << "vector"
                            << "std::array";
    QTest::newRow("thread") << "thread"
                            << "__syncthreads()";
    QTest::newRow("random") << "random"
                            << "curand_kernel.h";
}

void TestStandardHeaders::hostOnlyHeaderNamedOnItsLine() {
    QFETCH(QString, header);
    QFETCH(QString, advice);
    const QString source = QStringLiteral("#include <cstdint>\n\n#include <%1>\n"
                                          "__global__ void k(float* out) { out[0] = 1; }\n")
                               .arg(header);
    const CompileResult result = compileIn(m_dir.path(), source);
    QVERIFY(!result.ok);
    bool found = false;
    for (const Diagnostic& d : result.diagnostics) {
        if (d.severity != Diagnostic::Severity::Error)
            continue;
        QCOMPARE(d.file, QStringLiteral("mine.cu"));
        QCOMPARE(d.line, 3);
        QVERIFY2(d.message.contains(QLatin1Char('<') + header + QLatin1Char('>')),
                 qPrintable(d.message));
        QVERIFY2(d.message.contains(QLatin1String("host-only")), qPrintable(d.message));
        QVERIFY2(d.message.contains(advice), qPrintable(d.message));
        found = true;
    }
    QVERIFY2(found, qPrintable(result.log));
    QVERIFY2(result.log.contains(QStringLiteral("mine.cu(3)")), qPrintable(result.log));
}

void TestStandardHeaders::guardedHostIncludeCompiles() {
    // A file shared with host code keeps its host includes out of NVRTC's sight; the check is
    // NVRTC's own, so only an include NVRTC really reads fails.
    const QString guarded =
        QStringLiteral("#ifndef __CUDACC_RTC__\n#include <iostream>\n#include <vector>\n#endif\n"
                       "__global__ void k(float* out) { out[0] = 1; }\n");
    CompileResult result = compileIn(m_dir.path(), guarded);
    QVERIFY2(result.ok, qPrintable(firstError(result)));
    // A host-only header asked about, not included, stays unknown.
    const QString asked = QStringLiteral(
        "#if __has_include(<iostream>)\n#error iostream must stay unknown to __has_include\n"
        "#endif\n__global__ void k(float* out) { out[0] = 1; }\n");
    result = compileIn(m_dir.path(), asked);
    QVERIFY2(result.ok, qPrintable(firstError(result)));
}

void TestStandardHeaders::projectHeaderOfAStandardNameWins() {
    // A project's own "cmath" (quoted, or on its include path) is the project's, as with nvcc.
    QFile own(m_dir.filePath(QStringLiteral("cmath")));
    QVERIFY(own.open(QIODevice::WriteOnly));
    own.write("#define PROJECT_CMATH 42\n");
    own.close();
    const QString source = QStringLiteral("#include \"cmath\"\n__global__ void k(float* out) { "
                                          "out[0] = PROJECT_CMATH; }\n");
    const CompileResult result = compileIn(m_dir.path(), source);
    QVERIFY2(result.ok, qPrintable(firstError(result)));
    QVERIFY(own.remove());
}

KERNELPAD_TEST_GUILESS_MAIN(TestStandardHeaders)
} // namespace tst_standardheaders
#include "tst_standardheaders.moc"
