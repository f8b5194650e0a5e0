#include "core/launch/Expression.h"

namespace kernelpad {

QString Expression::message(const mu::Parser::exception_type& e) {
    QString text = QString::fromStdString(e.GetMsg());
    if (!text.contains(QLatin1String("position")) && e.GetPos() >= 0)
        text += QStringLiteral(" at position %1").arg(e.GetPos());
    return text;
}

QString Expression::defineConstant(const QString& name, double value) {
    try {
        m_parser.DefineConst(name.toStdString(), value);
    } catch (const mu::Parser::exception_type& e) {
        return message(e);
    }
    return {};
}

QString Expression::defineVariable(const QString& name, double* storage) {
    try {
        m_parser.DefineVar(name.toStdString(), storage);
    } catch (const mu::Parser::exception_type& e) {
        return message(e);
    }
    return {};
}

double* Expression::createVariable(const char* /*name*/, void* self) {
    auto* expression = static_cast<Expression*>(self);
    expression->m_created.push_back(0.0);
    return &expression->m_created.back();
}

void Expression::createUndefinedVariables() {
    m_parser.SetVarFactory(&Expression::createVariable, this);
}

QString Expression::compile(const QString& text) {
    m_used.clear();
    try {
        m_parser.SetExpr(text.toStdString());
        // GetUsedVar parses the whole expression (SetExpr checks only part of the syntax) and
        // lists every name it uses: defined ones, created ones, and undefined ones as null.
        for (const auto& [name, storage] : m_parser.GetUsedVar())
            m_used.append(Variable{QString::fromStdString(name), storage});
    } catch (const mu::Parser::exception_type& e) {
        return message(e);
    }
    return {};
}

} // namespace kernelpad
