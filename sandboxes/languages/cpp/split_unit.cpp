@@prefix@@@@declaration@@
@@dispatcher@@