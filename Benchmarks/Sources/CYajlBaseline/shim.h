// yajl's parser API, for the baseline benchmark that drives yajl with callbacks that do nothing.
#include <yajl/yajl_parse.h>
