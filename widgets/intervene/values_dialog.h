#pragma once
// A small dialog asking for one or a few numbers (an intervention's new bandwidth, price,
// share of a group), each shown with its unit and the value in effect. Values are typed,
// not bounded by a spin box: what is wrong (not a number, out of bounds, a parameter the
// policy does not have) is said in the dialog by the check the caller gives, which is the
// scenario reader's own, and the dialog stays open until the values pass or it is cancelled.

#include <QDialog>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

class QLabel;
class QLineEdit;

namespace fog {

struct ValueField {
    QString label;            ///< "Bandwidth up"
    QString unit;             ///< "Mbit/s"
    std::optional<double> current; ///< the value in effect (shown, and the field's start)
    bool optional = false;    ///< an empty field leaves the quantity unchanged
};

class ValuesDialog : public QDialog {
    Q_OBJECT
public:
    /// `check` gets the typed values (NaN for an empty optional field) and returns "" when
    /// they are good, else the message to show.
    using Check = std::function<QString(const std::vector<double>& values)>;
    ValuesDialog(const QString& title, const QString& intro, std::vector<ValueField> fields, Check check,
                 QWidget* parent = nullptr);

    /// The values typed (NaN: an empty optional field), once accepted.
    const std::vector<double>& values() const { return values_; }
    QLineEdit* field(int i) const { return edits_.at(static_cast<std::size_t>(i)); }
    /// The message shown for the last refused values ("" when none).
    QString message() const;

    void accept() override;

private:
    std::vector<ValueField> fields_;
    std::vector<QLineEdit*> edits_;
    QLabel* message_;
    Check check_;
    std::vector<double> values_;
};

/// Parses a typed number ("2", "2.5", "1e3", with the C or the user's locale); nothing for
/// anything else.
std::optional<double> parseNumber(const QString& text);

} // namespace fog
