#pragma once
// A formula of a sweep (grid, dynamic shared memory, a restriction) over the sweep's named
// variables, with muParser. muParser has no remainder operator, and restrictions such as
// "TILE % 4 == 0" need one: this parser defines `%` as fmod (the sign of the dividend, as C's
// % for integers), at the precedence of * and /.

#include <QString>
#include <QStringList>
#include <QVector>

#include <muParser.h>

#include <vector>

namespace kernelpad {

/// One compiled formula; variables are given in the order of the names it was compiled with.
/// Neither copied nor moved (muParser keeps the variables' addresses).
class SweepFormula {
public:
    SweepFormula() = default;
    SweepFormula(const SweepFormula&) = delete;
    SweepFormula& operator=(const SweepFormula&) = delete;

    /// Parses `text` over `names`; empty on success, else the parser's message (an unknown
    /// name, a syntax error with its position).
    QString compile(const QString& text, const QStringList& names);
    /// The value for `values` (one per name); NaN when muParser refuses (never throws).
    double evaluate(const QVector<double>& values);

private:
    mu::Parser m_parser;
    std::vector<double> m_values;
};

} // namespace kernelpad
