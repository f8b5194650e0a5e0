#include "core/sweep/SweepFormula.h"

#include "core/launch/Expression.h"

#include <cmath>
#include <limits>

namespace kernelpad {

namespace {

double remainder(double a, double b) {
    return std::fmod(a, b);
}

} // namespace

QString SweepFormula::compile(const QString& text, const QStringList& names) {
    m_values.assign(size_t(names.size()), 0.0);
    try {
        m_parser.DefineOprt(QStringLiteral("%").toStdString(), remainder, mu::prMUL_DIV);
        for (qsizetype i = 0; i < names.size(); ++i)
            m_parser.DefineVar(names[i].toStdString(), &m_values[size_t(i)]);
        m_parser.SetExpr(text.toStdString());
        m_parser.Eval(); // muParser parses lazily: a syntax error shows here
    } catch (const mu::Parser::exception_type& e) {
        return Expression::message(e);
    }
    return {};
}

double SweepFormula::evaluate(const QVector<double>& values) {
    for (qsizetype i = 0; i < values.size() && size_t(i) < m_values.size(); ++i)
        m_values[size_t(i)] = values[i];
    try {
        return m_parser.Eval();
    } catch (const mu::Parser::exception_type&) {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

} // namespace kernelpad
