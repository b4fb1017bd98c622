  write(0, '(a)') '{marker}'
end program