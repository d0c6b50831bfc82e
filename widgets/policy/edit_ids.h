#pragma once
// Merge ids of the generic scenario edits made by the side panels: consecutive edits with
// the same id (typing into one field) merge into one undo step. Kept apart from the
// topology editor's own command ids.

namespace fog {

enum PanelEditId {
    kEditSyncParams = 5000,
    kEditSelectionParams,
    kEditSettingsFirst = 5100, ///< the settings panel numbers its fields from here
};

} // namespace fog
