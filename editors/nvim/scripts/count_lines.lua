-- Counts the non-blank, non-comment lines of Lua files, for docs/editors.md's line counts:
-- `nvim -l editors/nvim/scripts/count_lines.lua FILE...` prints the total and the file count.
-- A line counts unless it is blank, a `--` line comment, or inside a `--[[ ]]` (or
-- `--[==[ ]==]`) block comment. A line holding code and a trailing comment counts.

--- The number of counted lines of `text`.
local function count(text)
  local n, closing = 0, nil
  for line in (text .. '\n'):gmatch('([^\n]*)\n') do
    if closing then
      local _, stop = line:find(closing, 1, true)
      if stop then
        closing = nil
        if line:sub(stop + 1):find('%S') then
          n = n + 1
        end
      end
    else
      local eq = line:match('^%s*%-%-%[(=*)%[')
      if eq then
        local close = ']' .. eq .. ']'
        if not line:find(close, 1, true) then
          closing = close
        end
      elseif not line:find('^%s*%-%-') and line:find('%S') then
        n = n + 1
      end
    end
  end
  return n
end

local total = 0
for _, path in ipairs(arg) do
  local file = assert(io.open(path, 'r'))
  total = total + count(file:read('*a'))
  file:close()
end
print(string.format('%d lines in %d files', total, #arg))
