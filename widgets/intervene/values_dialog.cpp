#include "widgets/intervene/values_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace fog {

std::optional<double> parseNumber(const QString& text) {
    const QString t = text.trimmed();
    if (t.isEmpty()) return std::nullopt;
    bool ok = false;
    double v = QLocale::c().toDouble(t, &ok);
    if (!ok) v = QLocale().toDouble(t, &ok);
    if (!ok || !std::isfinite(v)) return std::nullopt;
    return v;
}

ValuesDialog::ValuesDialog(const QString& title, const QString& intro, std::vector<ValueField> fields, Check check,
                           QWidget* parent)
    : QDialog(parent), fields_(std::move(fields)), check_(std::move(check)) {
    setWindowTitle(title);
    setObjectName("valuesDialog");
    auto* layout = new QVBoxLayout(this);
    if (!intro.isEmpty()) {
        auto* text = new QLabel(intro, this);
        text->setWordWrap(true);
        layout->addWidget(text);
    }
    auto* form = new QFormLayout;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const ValueField& f = fields_[i];
        auto* edit = new QLineEdit(this);
        edit->setObjectName(QStringLiteral("value%1").arg(i));
        if (f.current) edit->setText(QString::number(*f.current, 'g', 10));
        const QString now = f.current ? tr("now %1 %2").arg(QString::number(*f.current, 'g', 6), f.unit).trimmed()
                                      : tr("not set");
        edit->setPlaceholderText(f.optional ? tr("unchanged") : QString());
        edit->setToolTip(now);
        auto* row = new QHBoxLayout;
        row->addWidget(edit, 1);
        auto* unit = new QLabel(f.unit.isEmpty() ? now : QStringLiteral("%1  (%2)").arg(f.unit, now), this);
        unit->setEnabled(false);
        row->addWidget(unit);
        form->addRow(f.label, row);
        edits_.push_back(edit);
    }
    layout->addLayout(form);
    message_ = new QLabel(this);
    message_->setObjectName("valuesMessage");
    message_->setWordWrap(true);
    message_->setStyleSheet("color: #c0392b");
    message_->hide();
    layout->addWidget(message_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &ValuesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ValuesDialog::reject);
    layout->addWidget(buttons);
    if (!edits_.empty()) {
        edits_.front()->setFocus();
        edits_.front()->selectAll();
    }
}

QString ValuesDialog::message() const { return message_->isVisible() || !message_->text().isEmpty() ? message_->text() : QString(); }

void ValuesDialog::accept() {
    std::vector<double> values;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
        const QString text = edits_[i]->text();
        if (text.trimmed().isEmpty() && fields_[i].optional) {
            values.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        const std::optional<double> v = parseNumber(text);
        if (!v) {
            message_->setText(tr("%1: '%2' is not a number").arg(fields_[i].label, text));
            message_->show();
            edits_[i]->setFocus();
            return;
        }
        values.push_back(*v);
    }
    if (check_) {
        const QString why = check_(values);
        if (!why.isEmpty()) {
            message_->setText(why);
            message_->show();
            return;
        }
    }
    message_->clear();
    message_->hide();
    values_ = values;
    QDialog::accept();
}

} // namespace fog
