// A header of the ops layer, which core may not include.
#pragma once
