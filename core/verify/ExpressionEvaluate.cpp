// evaluateExpression (Verify.h): an expression checked over every element of its inputs, in
// chunks shared out between threads, each with its own muParser.
#include "core/verify/Verify.h"

#include "core/launch/BufferInit.h"
#include "core/launch/Expression.h"
#include "core/verify/ElementTraits.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace kernelpad {

namespace {

using namespace verifydetail;

/// Inputs are decoded this many elements at a time by typed loops, small enough that the
/// per-variable arrays stay in cache.
constexpr qint64 kChunkElements = 64 * 1024;
/// 2^31 doubles (16 GiB of results) is far beyond any useful check.
constexpr qint64 kMaxExpressionElements = qint64(1) << 31;

template <typename Traits>
void fillScalarChunk(const char* data, int strideBytes, qint64 first, qint64 n, double* out) {
    const char* p = data + first * strideBytes;
    for (qint64 k = 0; k < n; ++k, p += strideBytes)
        out[k] = Traits::value(load<Traits>(p));
}

/// Element `first + k` of an input (real part for complex, first field for structs).
void fillChunk(const ExpressionInput& input, qint64 first, qint64 n, double* out) {
    const char* data = input.data->constData();
    const int stride = input.type.sizeBytes();
    if (input.type.isStruct()) {
        for (qint64 k = 0; k < n; ++k)
            out[k] = elementAsDouble(input.type, data, first + k);
        return;
    }
    switch (input.type.scalar) {
    case ScalarType::Bool:
        return fillScalarChunk<Boolean>(data, stride, first, n, out);
    case ScalarType::Int8:
        return fillScalarChunk<Plain<qint8>>(data, stride, first, n, out);
    case ScalarType::Int16:
        return fillScalarChunk<Plain<qint16>>(data, stride, first, n, out);
    case ScalarType::Int32:
        return fillScalarChunk<Plain<qint32>>(data, stride, first, n, out);
    case ScalarType::Int64:
        return fillScalarChunk<Plain<qint64>>(data, stride, first, n, out);
    case ScalarType::UInt8:
        return fillScalarChunk<Plain<quint8>>(data, stride, first, n, out);
    case ScalarType::UInt16:
        return fillScalarChunk<Plain<quint16>>(data, stride, first, n, out);
    case ScalarType::UInt32:
        return fillScalarChunk<Plain<quint32>>(data, stride, first, n, out);
    case ScalarType::UInt64:
        return fillScalarChunk<Plain<quint64>>(data, stride, first, n, out);
    case ScalarType::Float16:
        return fillScalarChunk<Half>(data, stride, first, n, out);
    case ScalarType::Float32:
    case ScalarType::Complex64:
        return fillScalarChunk<Plain<float>>(data, stride, first, n, out);
    case ScalarType::Float64:
    case ScalarType::Complex128:
        return fillScalarChunk<Plain<double>>(data, stride, first, n, out);
    case ScalarType::BFloat16:
        return fillScalarChunk<BFloat16Bits>(data, stride, first, n, out);
    case ScalarType::Float8E4M3:
        return fillScalarChunk<E4M3Bits>(data, stride, first, n, out);
    case ScalarType::Float8E5M2:
        return fillScalarChunk<E5M2Bits>(data, stride, first, n, out);
    case ScalarType::Float4E2M1x2:
        return fillScalarChunk<Fp4x2Low>(data, stride, first, n, out);
    }
}

/// Threads for an expression over `count` elements: one per core, at most 16, and none
/// beyond one per four chunks (a thread's start costs more than a few chunks).
int expressionThreads(qint64 count) {
    const qint64 cores = std::max(1u, std::thread::hardware_concurrency());
    return int(std::clamp<qint64>(std::min(cores, count / (4 * kChunkElements)), 1, 16));
}

QString parserMessage(const QString& expression, const QString& message) {
    return QStringLiteral("expression '%1': %2").arg(expression, message);
}

/// One variable of the expression: an input buffer or the index. muParser's bulk mode
/// (Eval(results, n)) runs an OpenMP parallel region per call; with the cores busy that
/// measured 16x slower (4.2 s for 16M elements) than one Eval() per element (0.27 s), so each
/// variable is one slot set before each Eval().
struct ExpressionSlot {
    QString name;
    const ExpressionInput* input = nullptr; ///< null for the index
    double value = 0;                       ///< what the validating parser reads
};

/// The variables the compiled `parser` uses; each input among them must hold `count` elements.
/// Nothing, with the message in `error`, when one is too short.
std::optional<std::vector<ExpressionSlot*>> usedSlots(const Expression& parser,
                                                      std::vector<ExpressionSlot>& variables,
                                                      const QString& expression, qint64 count,
                                                      QString* error) {
    const QVector<Expression::Variable> used = parser.usedVariables();
    std::vector<ExpressionSlot*> active;
    for (ExpressionSlot& v : variables) {
        const double* storage = &v.value;
        const bool isUsed =
            std::any_of(used.begin(), used.end(),
                        [storage](const Expression::Variable& u) { return u.storage == storage; });
        if (!isUsed)
            continue;
        if (v.input) {
            const qint64 have =
                v.input->data ? std::min(v.input->count, qint64(v.input->data->size()) /
                                                             std::max(1, v.input->type.sizeBytes()))
                              : 0;
            if (have < count) {
                *error = QStringLiteral("input buffer '%1' has %2 elements; expression '%3' "
                                        "needs %4")
                             .arg(v.name)
                             .arg(have)
                             .arg(expression)
                             .arg(count);
                return std::nullopt;
            }
        }
        active.push_back(&v);
    }
    return active;
}

/// Evaluates the validated `expression` for elements [0, count) into `out`. The chunks are
/// shared out between threads, each with its own parser (a muParser instance is not
/// thread-safe); results land in disjoint ranges. Empty, or why it failed.
QString evaluateInChunks(const QString& expression, qint64 count,
                         const QHash<QString, double>& scalars,
                         const std::vector<ExpressionSlot*>& active, double* out) {
    std::atomic<qint64> nextChunk{0};
    std::mutex failureMutex;
    QString failure;
    const auto stopWith = [&](const QString& message) {
        const std::lock_guard<std::mutex> lock(failureMutex);
        failure = message;
        nextChunk = count; // the others stop at their next chunk
    };
    const auto worker = [&] {
        try {
            Expression local;
            for (auto it = scalars.cbegin(); it != scalars.cend(); ++it)
                (void)local.defineConstant(it.key(), it.value());
            std::vector<double> values(active.size());
            std::vector<std::vector<double>> chunks(active.size());
            for (size_t v = 0; v < active.size(); ++v) {
                (void)local.defineVariable(active[v]->name, &values[v]);
                if (active[v]->input)
                    chunks[v].resize(size_t(kChunkElements));
            }
            // The validating parser accepted it, so this cannot fail but is checked anyway.
            if (const QString problem = local.compile(expression); !problem.isEmpty())
                return stopWith(parserMessage(expression, problem));
            for (qint64 first; (first = nextChunk.fetch_add(kChunkElements)) < count;) {
                const qint64 n = std::min(kChunkElements, count - first);
                for (size_t v = 0; v < active.size(); ++v)
                    if (active[v]->input)
                        fillChunk(*active[v]->input, first, n, chunks[v].data());
                for (qint64 k = 0; k < n; ++k) {
                    for (size_t v = 0; v < active.size(); ++v)
                        values[v] = active[v]->input ? chunks[v][size_t(k)] : double(first + k);
                    out[first + k] = local.evaluate();
                }
            }
        } catch (const ExpressionError& e) {
            stopWith(parserMessage(expression, QString::fromStdString(e.what())));
        } catch (const std::exception& e) {
            stopWith(QStringLiteral("evaluating '%1' failed: %2")
                         .arg(expression, QString::fromLocal8Bit(e.what())));
        }
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < expressionThreads(count); ++t)
        helpers.emplace_back(worker);
    worker();
    for (std::thread& t : helpers)
        t.join();
    return failure;
}

/// "argument 'x' cannot be used in an expression: ...", or empty for no problem.
QString defineProblem(const QString& name, const QString& problem) {
    if (problem.isEmpty())
        return {};
    return QStringLiteral("argument '%1' cannot be used in an expression: %2").arg(name, problem);
}

} // namespace

std::optional<QVector<double>> evaluateExpression(const QString& expression, qint64 count,
                                                  const QHash<QString, double>& scalars,
                                                  const QHash<QString, ExpressionInput>& inputs,
                                                  QString* error) {
    const auto fail = [error](const QString& message) -> std::optional<QVector<double>> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    if (expression.trimmed().isEmpty())
        return fail(QStringLiteral("the expression is empty"));
    if (count < 0 || count > kMaxExpressionElements)
        return fail(QStringLiteral("cannot evaluate an expression for %1 elements (at most %2)")
                        .arg(count)
                        .arg(kMaxExpressionElements));

    // An argument named "i" shadows the index: the user's name wins.
    const QString indexName = QStringLiteral("i");
    const bool hasIndex = !scalars.contains(indexName) && !inputs.contains(indexName);
    QStringList known = scalars.keys() + inputs.keys();
    known.sort();
    if (hasIndex)
        known.append(indexName);

    try {
        Expression parser;
        // Scalars are constants, so muParser folds them into the bytecode.
        for (auto it = scalars.cbegin(); it != scalars.cend(); ++it)
            if (const QString problem =
                    defineProblem(it.key(), parser.defineConstant(it.key(), it.value()));
                !problem.isEmpty())
                return fail(problem);
        std::vector<ExpressionSlot> variables;
        variables.reserve(size_t(inputs.size()) + 1); // every slot's address stays put for muParser
        for (auto it = inputs.cbegin(); it != inputs.cend(); ++it) {
            variables.push_back(ExpressionSlot{it.key(), &it.value(), 0.0});
            if (const QString problem = defineProblem(
                    it.key(), parser.defineVariable(it.key(), &variables.back().value));
                !problem.isEmpty())
                return fail(problem);
        }
        if (hasIndex) {
            variables.push_back(ExpressionSlot{indexName, nullptr, 0.0});
            (void)parser.defineVariable(indexName, &variables.back().value);
        }

        if (const QString problem = parser.compile(expression); !problem.isEmpty())
            return fail(parserMessage(expression, problem));
        QStringList unknown;
        for (const Expression::Variable& variable : parser.usedVariables())
            if (!variable.storage)
                unknown.append(variable.name);
        if (!unknown.isEmpty())
            return fail(QStringLiteral("unknown name%1 %2 in expression '%3'; known: %4")
                            .arg(unknown.size() > 1 ? QStringLiteral("s") : QString(),
                                 QLatin1Char('\'') + unknown.join(QLatin1String("', '")) +
                                     QLatin1Char('\''),
                                 expression, known.join(QLatin1String(", "))));

        // Only what the expression uses is filled per chunk (and has to be long enough).
        QString problem;
        const std::optional<std::vector<ExpressionSlot*>> active =
            usedSlots(parser, variables, expression, count, &problem);
        if (!active)
            return fail(problem);
        QVector<double> results(count);
        if (const QString failure =
                evaluateInChunks(expression, count, scalars, *active, results.data());
            !failure.isEmpty())
            return fail(failure);
        return results;
    } catch (const std::bad_alloc&) {
        return fail(QStringLiteral("not enough memory to evaluate '%1' for %2 elements")
                        .arg(expression)
                        .arg(count));
    }
}

} // namespace kernelpad
