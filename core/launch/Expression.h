#pragma once
// One muParser expression with named constants and variables. Buffer counts ("rows*cols") and
// verification expressions ("a*x+y") are compiled and evaluated through it, so both word a
// parser error the same way.

#include <QString>
#include <QVector>

#include <muParser.h>

#include <deque>
#include <stdexcept>

namespace kernelpad {

/// A muParser error met while evaluating; what() is the message as Expression words it.
class ExpressionError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A compiled expression. Not thread-safe (a muParser instance is not): threads that evaluate
/// in parallel build one each. Neither copied nor moved, since muParser keeps the addresses of
/// the variables.
class Expression {
public:
    Expression() = default;
    Expression(const Expression&) = delete;
    Expression& operator=(const Expression&) = delete;

    /// Defines a constant, which muParser folds into the bytecode. Empty on success, else the
    /// parser's reason (a name it does not take).
    QString defineConstant(const QString& name, double value);
    /// Defines a variable read from `*storage` at each evaluate(); `storage` must outlive this.
    QString defineVariable(const QString& name, double* storage);
    /// Gives every name the expression uses without its being defined a variable of its own
    /// (zero until set through usedVariables()), instead of leaving it undefined.
    void createUndefinedVariables();

    /// Parses `text`; empty on success, else the parser's message with the position of the
    /// problem ("Unexpected end of expression at position 2").
    QString compile(const QString& text);

    struct Variable {
        QString name;
        double* storage = nullptr; ///< null: used but neither defined nor created
    };
    /// The variables the compiled expression uses, in name order.
    [[nodiscard]] QVector<Variable> usedVariables() const { return m_used; }

    /// The value for the variables' current values. Throws ExpressionError. Inline: it runs
    /// once per element of a verified buffer.
    double evaluate() {
        try {
            return m_parser.Eval();
        } catch (const mu::Parser::exception_type& e) {
            throw ExpressionError(message(e).toStdString());
        }
    }

    /// A muParser exception's message, with the position when it has one and does not say it.
    [[nodiscard]] static QString message(const mu::Parser::exception_type& e);

private:
    static double* createVariable(const char* name, void* self);

    mu::Parser m_parser;
    std::deque<double> m_created; ///< a deque: addresses stay valid as it grows
    QVector<Variable> m_used;
};

} // namespace kernelpad
