# kbcc_enable(<target>...): compile the CUDA sources of these targets through
# kbcc (sets CUDA_COMPILER_LAUNCHER, keeping a launcher already set, e.g. ccache,
# in front of kbcc).
# kbcc_enable(GLOBAL): the same for every target created afterwards in this
# directory and below (sets CMAKE_CUDA_COMPILER_LAUNCHER in the caller's scope).
# Needs KBCC_EXECUTABLE (set by kbccConfig.cmake).
function(kbcc_enable)
  if(NOT ARGN)
    message(FATAL_ERROR "kbcc_enable: give target names or GLOBAL")
  endif()
  if(NOT KBCC_EXECUTABLE OR NOT EXISTS "${KBCC_EXECUTABLE}")
    message(FATAL_ERROR "kbcc_enable: KBCC_EXECUTABLE ('${KBCC_EXECUTABLE}') does not exist")
  endif()
  if(ARGN STREQUAL "GLOBAL")
    set(_launcher ${CMAKE_CUDA_COMPILER_LAUNCHER})
    list(REMOVE_ITEM _launcher "${KBCC_EXECUTABLE}")
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${_launcher} "${KBCC_EXECUTABLE}" PARENT_SCOPE)
    return()
  endif()
  foreach(_target IN LISTS ARGN)
    if(NOT TARGET ${_target})
      message(FATAL_ERROR "kbcc_enable: '${_target}' is not a target")
    endif()
    get_target_property(_launcher ${_target} CUDA_COMPILER_LAUNCHER)
    if(NOT _launcher)
      set(_launcher "")
    endif()
    list(REMOVE_ITEM _launcher "${KBCC_EXECUTABLE}")
    set_property(TARGET ${_target} PROPERTY CUDA_COMPILER_LAUNCHER ${_launcher} "${KBCC_EXECUTABLE}")
  endforeach()
endfunction()
