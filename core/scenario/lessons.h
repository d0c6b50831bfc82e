#pragma once
// The lessons the presets carry (`lesson:` in a preset file, core/scenario/variants.h): read
// from the preset folder for the studio's Lessons panel, and rendered as docs/lessons.md, so
// that the text has one source.

#include "core/spec/scenario.h"

#include <string>
#include <vector>

namespace fog {

/// One preset that has a lesson.
struct PresetLesson {
    std::string path;     ///< the preset file
    std::string fileName; ///< e.g. volatile-spot-sync.yaml
    std::string name;     ///< the scenario's name
    bool cluster = false; ///< a cluster scheduling scenario (kind: cluster): no variants
    std::vector<std::string> variants; ///< variant names, in file order
    int repeats = 1;
    LessonSpec lesson;
};

/// Reads the lesson (and the variant names) of one preset, training or cluster, without
/// loading the rest. Throws ScenarioError when the file cannot be read or its lesson section
/// is malformed; a file without a lesson gives lesson.number == 0.
PresetLesson readPresetLesson(const std::string& path);

/// The lessons of every *.yaml in `dir`, ordered by number (files without a lesson are left
/// out). A file that cannot be read is skipped and named in `problems` ("file: message").
/// Two presets with the same lesson number are a problem too (the second is left out).
std::vector<PresetLesson> presetLessons(const std::string& dir, std::vector<std::string>* problems = nullptr);

/// The lessons as the Markdown between the markers of docs/lessons.md
/// (`fogstudio-cli lessons --markdown`).
std::string lessonsMarkdown(const std::vector<PresetLesson>& lessons);

/// Markdown as plain text on one line (emphasis and code marks dropped, lines joined).
std::string lessonPlainText(const std::string& markdown);

/// The markers around the generated part of docs/lessons.md.
inline constexpr const char* kLessonsBegin = "<!-- lessons:begin (fogstudio-cli lessons --markdown) -->\n";
inline constexpr const char* kLessonsEnd = "<!-- lessons:end -->";

} // namespace fog
