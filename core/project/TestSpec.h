#pragma once
// A project's tests: the sizes (scalar values) its kernel must be right at, each run and
// verified as a normal run is, and whether each is run twice to compare bits. JSON: the
// project's "tests" section, written only when it has cases or a generator; either the list
// of cases alone or an object with the section's settings:
//
//   "tests": [{"values": {"n": 33}}, {"name": "big", "values": {"n": 1048583}}]
//
//   "tests": {
//     "cases": [{"values": {"n": 33}, "block": [32, 1, 1]}],
//     "generate": "tails", "over": "n",   // 1, 31, 32, 33, bx-1, bx, bx+1, 2*bx+1, own n
//     "grid": ["(n + bx - 1) / bx", "1", "1"],  // formulas as a sweep's (core/sweep)
//     "block": ["min(256, n)"],           // 1 to 3 sizes or formulas over the scalars
//     "determinism": true                 // or false, or "reversed"; default: true when an
//   }                                     // output is floating-point
//
// A case's grid and block are its own, else the section's, else the project's launch; the
// buffers follow their count expressions. core/engine/TestRun maps a case to the project
// that runs it. With "determinism": "reversed" the second run compiles with
// KERNELPAD_REVERSED_BLOCKS defined (kReversedBlocksDefine), and a kernel that reads its block
// index through it runs its blocks' work in the opposite order.

#include "core/launch/ArgumentSpec.h"

#include <QJsonValue>
#include <QString>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// The value a case gives one scalar argument.
struct TestValue {
    QString name;
    double value = 0;
    friend bool operator==(const TestValue& a, const TestValue& b) {
        return a.name == b.name && a.value == b.value;
    }
};

/// One case of a project's tests.
struct TestCase {
    QString name; ///< empty: named by its values ("n = 33")
    QVector<TestValue> values;
    /// Formulas over bx, by, bz and the scalars, as a sweep's grid; absent: the section's.
    std::optional<std::array<QString, 3>> grid;
    /// Formulas over the numeric scalars ("min(256, n)"; "64" is one too); absent: the
    /// section's.
    std::optional<std::array<QString, 3>> block;
    /// The generator made it (it is not written to the file).
    bool generated = false;

    /// `name`, else "n = 33, m = 4", else "block 64x1x1", else "own size".
    [[nodiscard]] QString displayName() const;
    [[nodiscard]] QJsonValue toJson() const;
    friend bool operator==(const TestCase& a, const TestCase& b) {
        return a.toJson() == b.toJson();
    }
};

/// A project's "tests" section.
struct TestSpec {
    /// More cases than this is a typo, not a test.
    static constexpr int kMaxCases = 1000;

    enum class Generator { None, Tails };

    QVector<TestCase> cases;
    Generator generate = Generator::None;
    QString over; ///< the integer scalar the generator sets
    std::optional<std::array<QString, 3>> grid;
    std::optional<std::array<QString, 3>> block; ///< as TestCase::block
    std::optional<bool> determinism;             ///< absent: true when an output is floating-point
    /// "determinism": "reversed": the second run defines kReversedBlocksDefine.
    bool reversedBlocks = false;

    [[nodiscard]] bool isEmpty() const { return cases.isEmpty() && generate == Generator::None; }
    /// The listed cases, then the generated ones whose values no listed case has; with
    /// `blockX` the block size of the project (the section's block when it has one, evaluated
    /// at the project's own values), `arguments` the project's.
    [[nodiscard]] QVector<TestCase> expand(const QVector<ArgumentSpec>& arguments,
                                           int blockX) const;
    /// Whether to compare two runs' bits, for a project with these arguments.
    [[nodiscard]] bool checksDeterminism(const QVector<ArgumentSpec>& arguments) const;

    /// The cases alone as an array when the section sets nothing else, else an object.
    [[nodiscard]] QJsonValue toJson() const;
    /// Reads the section; `arguments` are the project's. Messages name the field under
    /// "tests" ("tests[2].values.n: not an integer (got 3.5)").
    static std::optional<TestSpec> fromJson(const QJsonValue& json,
                                            const QVector<ArgumentSpec>& arguments, QString* error);
    friend bool operator==(const TestSpec& a, const TestSpec& b) {
        return a.toJson() == b.toJson();
    }
};

/// The define a "reversed" determinism run compiles with (value 1): a kernel that opts in
/// takes its block index as `gridDim.x - 1 - blockIdx.x` when it is defined.
inline constexpr const char* kReversedBlocksDefine = "KERNELPAD_REVERSED_BLOCKS";

/// Evaluates block formulas (TestCase::block) with the scalars of `arguments`, `values`
/// replacing theirs. Nullopt with `*error` ("block[0]: min(256, n) gives 0, outside 1 ..
/// 1024") when one does not give a whole number of threads a block can have.
[[nodiscard]] std::optional<std::array<int, 3>>
evaluateTestBlock(const std::array<QString, 3>& formulas, const QVector<ArgumentSpec>& arguments,
                  const QVector<TestValue>& values, QString* error);

/// The sizes around a warp and a block of `blockX` threads where a tail bug shows: 1, 31,
/// 32, 33, blockX - 1, blockX, blockX + 1, 2 * blockX + 1 and `own` (when given), ascending,
/// each once.
[[nodiscard]] QVector<qint64> tailSizes(int blockX, std::optional<qint64> own);

} // namespace kernelpad
