print STDERR "{marker}\n";
