#pragma once
// The tests are built as three programs, not one per file (tests/CMakeLists.txt): each
// tst_*.cpp registers its test class under its own file name, and the program's main()
// (TestMain.cpp) runs the one named first on its command line:
//
//     build/tests/kernelpad_tests_core tst_verify [QTest options]
//
// ctest runs each file as its own test. These macros replace QTEST_MAIN, QTEST_GUILESS_MAIN
// and QTEST_APPLESS_MAIN and expand to what those do (qtest.h), minus main() itself.

#include <QString>
#include <QtTest>

namespace kptest {

using TestMainFunction = int (*)(int argc, char** argv);

/// Registers `main` under the base name of `sourceFile` (tst_verify for .../tst_verify.cpp).
/// Aborts on a second registration of the same name: two files must not share one.
bool registerTest(const char* sourceFile, TestMainFunction main);

/// The name of the test this process runs. A test that starts its own program again (a child
/// process, a stand-in runner) passes it as the first argument.
QString currentTestName();

} // namespace kptest

#define KERNELPAD_TEST_WRAPPER(TestObject, ...)                                                    \
    static int kernelpadTestMain(int argc, char* argv[]) {                                         \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                         \
        __VA_ARGS__                                                                                \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&tc, argc, argv);                                                      \
    }                                                                                              \
    KERNELPAD_TEST_CUSTOM_MAIN(kernelpadTestMain)

/// As QTEST_MAIN: a QApplication where the program links Qt Widgets, else a QCoreApplication.
#define KERNELPAD_TEST_MAIN(TestObject) KERNELPAD_TEST_WRAPPER(TestObject, QTEST_MAIN_SETUP())
/// As QTEST_GUILESS_MAIN: a QCoreApplication.
#define KERNELPAD_TEST_GUILESS_MAIN(TestObject)                                                    \
    KERNELPAD_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
/// As QTEST_APPLESS_MAIN: no application object.
#define KERNELPAD_TEST_APPLESS_MAIN(TestObject) KERNELPAD_TEST_WRAPPER(TestObject)
/// A test with its own `static int function(int argc, char** argv)` instead of main().
#define KERNELPAD_TEST_CUSTOM_MAIN(function)                                                       \
    [[maybe_unused]] static const bool kernelpadTestRegistered =                                   \
        kptest::registerTest(__FILE__, function);
