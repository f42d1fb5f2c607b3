#pragma once
// A header with an error in it, for compile-errors.cpp.
undeclared_type broken_header();
