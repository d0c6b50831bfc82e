#pragma once
// One text cell of a CSV file the project writes (exports of runs, sweeps, cluster runs):
// quoted as RFC 4180 says when it holds a comma, a quote or a line break, and defused when a
// spreadsheet would read it as a formula. Names come from users and from databases received
// from others (untrusted): a cell starting with '=', '+', '-', '@', a tab or a carriage
// return is a formula in Excel, LibreOffice and Google Sheets, so it gets a leading
// apostrophe (shown as text, OWASP's advice for CSV injection) and is quoted. Numbers are
// written by the callers, never through this function.

#include <string>

namespace fog {

inline std::string csvCell(const std::string& s) {
    const bool formula = !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' ||
                                        s[0] == '\t' || s[0] == '\r');
    if (!formula && s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = formula ? "\"'" : "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

} // namespace fog
