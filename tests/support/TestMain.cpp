// main() of the test programs: runs the registered test named by the first argument
// (TestMain.h), handing it the remaining arguments as QTest options.

#include "TestMain.h"

#include "core/compile/CompileWatchdog.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

std::map<std::string, kptest::TestMainFunction>& registry() {
    static std::map<std::string, kptest::TestMainFunction> tests;
    return tests;
}

std::string& currentName() {
    static std::string name;
    return name;
}

std::string baseName(const char* path) {
    std::string name(path);
    const size_t slash = name.find_last_of('/');
    if (slash != std::string::npos)
        name.erase(0, slash + 1);
    const size_t dot = name.find('.');
    if (dot != std::string::npos)
        name.erase(dot);
    return name;
}

void printUsage(FILE* out, const char* program) {
    std::fprintf(out,
                 "usage: %s TEST [QTest options]   (e.g. -functions, or one test function's name)\n"
                 "       %s --list\n"
                 "Runs one of the test files built into this program; ctest runs each of them.\n"
                 "TEST is one of:\n",
                 program, program);
    for (const auto& entry : registry())
        std::fprintf(out, "  %s\n", entry.first.c_str());
}

} // namespace

bool kptest::registerTest(const char* sourceFile, TestMainFunction main) {
    const std::string name = baseName(sourceFile);
    if (!registry().emplace(name, main).second) {
        std::fprintf(stderr, "two test files are named %s; test names must be unique\n",
                     name.c_str());
        std::abort();
    }
    return true;
}

QString kptest::currentTestName() {
    return QString::fromStdString(currentName());
}

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto& entry : registry())
            std::printf("%s\n", entry.first.c_str());
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        const bool help =
            argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0);
        printUsage(help ? stdout : stderr, argv[0]);
        return help ? 0 : 2;
    }
    const auto test = registry().find(argv[1]);
    if (test == registry().end()) {
        std::fprintf(stderr, "%s: no test named '%s'\n", argv[0], argv[1]);
        printUsage(stderr, argv[0]);
        return 2;
    }
    currentName() = test->first;
    // The test sees the arguments after its name, as QTest expects, and a program name that
    // ends in the test's name, as when each test was a program of its own: Qt derives the
    // application name from it, and with it the test's QSettings, its QStandardPaths test
    // folders and QTemporaryDir's names, so tests running side by side share none of them.
    // (applicationFilePath() still names this program: Qt reads it from /proc/self/exe.)
    std::string program(argv[0]);
    const size_t slash = program.find_last_of('/');
    program =
        (slash == std::string::npos ? std::string() : program.substr(0, slash + 1)) + test->first;
    std::vector<char*> arguments{program.data()};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    arguments.push_back(nullptr);
    // An Engine a test destroyed mid-compile may leave NVRTC compiling on: wait for it.
    return kernelpad::exitCodeAfterCompiles(
        test->second(int(arguments.size()) - 1, arguments.data()));
}
