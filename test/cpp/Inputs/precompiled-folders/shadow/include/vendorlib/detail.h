// A project's header of the same name as the vendor's: its -I folder is searched first, so the
// vendor's restorer restores nothing in this project.
#pragma once
#define VENDOR_RESTORE(previous) (void)(previous)
